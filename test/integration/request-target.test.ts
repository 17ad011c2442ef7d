import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { demoPackage } from '../support/demo-package.js';
import { startReactor } from '../support/reactor-fixture.js';
import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { answerClientError, refusedOnSocket } from '../../src/adapters/http/malformed-requests.js';
import { exchangeOnSocket } from '../support/raw-http.js';

let fixture: Awaited<ReturnType<typeof startReactor>>;
let port: number;
beforeAll(async () => {
  const opener = new MemoryOpener().add('site', demoPackage({ 'data/items.json': '[{"id":"a"}]', 'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }) }));
  fixture = await startReactor(opener, [{ source: 'site' }]);
  await new Promise<void>((resolve) => fixture.http.listen(0, '127.0.0.1', resolve));
  port = (fixture.http.address() as AddressInfo).port;
});
afterAll(() => fixture.stop());

/** One request written as it is, request target and all; the status line and body of the answer. */
function raw(request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
  });
}

describe('request targets (RFC 9112)', () => {
  it('answers the absolute form, which proxies send, as its path and query', async () => {
    const page = await raw('GET http://127.0.0.1/style.css HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(page).toEqual({ status: 200, body: 'body { color: black; }' });
    expect(JSON.parse((await raw('GET HTTP://elsewhere.example/api/v1/data/items?id=a HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).body)).toEqual([{ id: 'a' }]);
    const body = '{"id":"b"}';
    expect((await raw(`POST http://127.0.0.1/api/v1/data/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)).status).toBe(201);
  });

  it('refuses the asterisk and authority forms, and an absolute form that is not a URL, with 400', async () => {
    for (const target of ['*', 'http://[bad/index.html']) {
      const answer = await raw(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect([target, answer.status, JSON.parse(answer.body).error.code]).toEqual([target, 400, 'BAD_PATH']);
    }
    // Node's parser takes the authority form only with CONNECT, and refuses it before the reactor sees it.
    expect((await raw('GET example.org:443 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).status).toBe(400);
  });

  it('answers OPTIONS * (the server as a whole, RFC 9110 §9.3.7) with 204 and the methods it answers', async () => {
    const answer = await exchangeOnSocket(`http://127.0.0.1:${port}`, 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 204 /);
    expect(/\r\nAllow: ([^\r]*)\r\n/i.exec(answer)?.[1]).toBe('GET, HEAD, POST, PUT, DELETE, OPTIONS');
    expect(answer.endsWith('\r\n\r\n')).toBe(true);
  });

  it('refuses in JSON what node passes of a request that is not well-formed HTTP/1.1, and answers what is', async () => {
    const refusal = async (request: string) => {
      const answer = await raw(request);
      return [answer.status, answer.body === '' ? '' : JSON.parse(answer.body).error.code];
    };
    expect(await refusal('GET /style.css HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: elsewhere\r\nConnection: close\r\n\r\n')).toEqual([400, 'BAD_REQUEST']);
    expect(await refusal('GET /style.css HTTP/1.1\r\nConnection: close\r\n\r\n')).toEqual([400, 'BAD_REQUEST']);
    // A Host that is no host (RFC 9112 §3.2): read as a name, the first two would pass for the reactor's own.
    for (const host of ['evil.example#.localhost', '[::1]@evil.example', 'localhost/evil', '127.0.0.1:80 x', 'a:b:c']) expect([host, ...(await refusal(`GET /style.css HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`))]).toEqual([host, 400, 'BAD_REQUEST']);
    for (const host of ['', 'x', 'Reactor.example:8080', '[::1]:8864', '127.0.0.1:', 'a_b.example']) expect([host, (await raw(`GET /style.css HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).status]).toEqual([host, 200]);
    expect(await refusal('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n')).toEqual([400, 'BAD_REQUEST']);
    expect(await refusal('GET /style.css HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\nConnection: close\r\n\r\n')).toEqual([400, 'BAD_REQUEST']);
    // A body in another coding under chunked is well-formed, but read as it came it would be taken for the body itself (RFC 9112 §6.1).
    expect(await refusal('POST /style.css HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n')).toEqual([501, 'UNSUPPORTED_TRANSFER_CODING']);
    expect(await refusal('POST /style.css HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n')).toEqual([501, 'UNSUPPORTED_TRANSFER_CODING']);
    expect((await raw('PUT /style.css HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding:  Chunked \r\nConnection: close\r\n\r\n0\r\n\r\n')).status).not.toBe(501);
    // The absolute form is refused where the origin form is: `..` is not resolved away.
    expect(await refusal('GET http://127.0.0.1/a/..%5Cstyle.css HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).toEqual([400, 'BAD_PATH']);
    expect(await refusal('GET http://127.0.0.1/a/../style.css HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).toEqual([400, 'BAD_PATH']);
    expect((await raw('GET /style.css HTTP/1.0\r\n\r\n')).status).toBe(200);
    expect((await raw('GET /style.css HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: something-else\r\nConnection: close\r\n\r\n')).status).toBe(200);
  });

  it('answers a request whose body failed to arrive or parse before its answer began, and tells the access log the status', () => {
    const written: string[] = [];
    const answer = { headersSent: false } as ServerResponse;
    const socket = Object.assign(new PassThrough(), { _httpMessage: answer });
    socket.on('data', (chunk: Buffer) => written.push(chunk.toString()));
    answerClientError(Object.assign(new Error('timed out'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    expect(written.join('')).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*"code":"REQUEST_TIMEOUT"/);
    expect(refusedOnSocket.get(answer)).toBe(408);
  });
});
