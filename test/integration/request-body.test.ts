import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { problemOf } from '../../src/adapters/http/http-problems.js';
import { BodyBudget, readBody } from '../../src/adapters/http/request-body.js';
import { exchangeOnSocket, rawRequest } from '../support/raw-http.js';

const LIMIT = 1000;
let server: Server;
let url: string;

// Answers the body it read (its length and text), or the problem it met, as the reactor's writes would.
beforeAll(async () => {
  server = createServer((request, response) => {
    // A wait before reading, as a password check or a module loading puts one.
    setTimeout(() => {
      readBody(request, LIMIT).then(
        (body) => response.end(JSON.stringify({ length: body.length, text: body.toString() })),
        (error: unknown) => {
          const problem = problemOf(error);
          response.writeHead(problem.status).end(JSON.stringify({ code: problem.code }));
        },
      );
    }, 20);
  });
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function post(body: Buffer | string, headers: Record<string, string> = {}): Promise<{ status: number; answer: { length?: number; text?: string; code?: string } }> {
  return new Promise((resolve, reject) => {
    const call = httpRequest(url, { method: 'POST', headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, answer: JSON.parse(text) as { length?: number; text?: string; code?: string } }));
    });
    call.on('error', reject);
    call.end(body);
  });
}

describe('readBody', () => {
  it('reads the body of a client that half-closed its connection once it was sent, after a wait', async () => {
    const answer = await exchangeOnSocket(url, 'PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world');
    expect(answer).toMatch(/^HTTP\/1\.1 200 [\s\S]*"text":"hello world"/);
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ])('decodes a %s body', async (coding, encode) => {
    expect(await post(encode(Buffer.from('{"id":"x"}')), { 'Content-Encoding': coding })).toEqual({ status: 200, answer: { length: 10, text: '{"id":"x"}' } });
  });

  it('refuses a body over the limit, declared (413 before reading) or once decoded (a gzip bomb)', async () => {
    expect(await post('x'.repeat(LIMIT + 1))).toEqual({ status: 413, answer: { code: 'BODY_TOO_LARGE' } });
    expect(await post(gzipSync(Buffer.alloc(10 * LIMIT * LIMIT)), { 'Content-Encoding': 'gzip' })).toEqual({ status: 413, answer: { code: 'BODY_TOO_LARGE' } });
    expect(await post('x'.repeat(LIMIT))).toEqual({ status: 200, answer: { length: LIMIT, text: 'x'.repeat(LIMIT) } });
  });

  it('refuses a coding it does not read (415) and bytes that do not decode (400)', async () => {
    expect(await post('{}', { 'Content-Encoding': 'compress' })).toEqual({ status: 415, answer: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    expect(await post('not gzip at all', { 'Content-Encoding': 'gzip' })).toEqual({ status: 400, answer: { code: 'BAD_REQUEST' } });
  });

  it('refuses a body unread (503, Retry-After) while the bodies being read hold the budget, and reads again once they are done', async () => {
    const budget = new BodyBudget(1500);
    const answered: Array<Promise<void>> = [];
    const small = createServer((request, response) => {
      const reading = readBody(request, LIMIT, budget).then(
        (body) => void response.end(JSON.stringify({ length: body.length })),
        (error: unknown) => {
          const problem = problemOf(error);
          response.writeHead(problem.status, problem.headers).end(JSON.stringify({ code: problem.code }));
        },
      );
      answered.push(reading);
    });
    await new Promise<void>((resolve) => small.listen(0, '127.0.0.1', resolve));
    const smallUrl = `http://127.0.0.1:${(small.address() as AddressInfo).port}/`;
    try {
      // A client that declares 1,000 bytes, sends 500, and waits.
      const slow = connect((small.address() as AddressInfo).port, '127.0.0.1');
      const slowAnswer = new Promise<string>((resolve) => {
        let text = '';
        slow.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        slow.on('close', () => resolve(text));
      });
      slow.write(`POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n${'a'.repeat(500)}`);
      while (answered.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const refused = await rawRequest(smallUrl, { 'Content-Length': '800' }, 'POST', 'b'.repeat(800));
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(JSON.parse(refused.body.toString())).toEqual({ code: 'SERVER_BUSY' });
      // Chunked, it is weighed at the limit: refused as well.
      expect((await rawRequest(smallUrl, { 'Transfer-Encoding': 'chunked' }, 'POST', 'c'.repeat(10))).status).toBe(503);
      slow.end('a'.repeat(500));
      expect(await slowAnswer).toMatch(/^HTTP\/1\.1 200 [\s\S]*\{"length":1000\}$/);
      expect((await rawRequest(smallUrl, { 'Content-Length': '800' }, 'POST', 'b'.repeat(800))).status).toBe(200);
      // A body alone is read whatever the budget.
      const tiny = new BodyBudget(10);
      expect(tiny.take(900)).toBeDefined();
    } finally {
      await new Promise<void>((resolve) => small.close(() => resolve()));
    }
  });
});
