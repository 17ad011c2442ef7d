import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { problemOf } from '../../src/adapters/http/http-problems.js';
import { readBody } from '../../src/adapters/http/request-body.js';
import { exchangeOnSocket } from '../support/raw-http.js';

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
});
