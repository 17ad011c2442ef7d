import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { ZipArchiveWriter } from '../../src/adapters/archive/zip-archive-writer.js';
import { MEMORY_FILE_LIMIT } from '../../src/application/serving/served-package.js';
import { demoPackage } from '../support/demo-package.js';
import { temporaryDirectory } from '../support/paths.js';
import { productionOpener } from '../support/production-container.js';
import { hasher, securityFor, startReactor } from '../support/reactor-fixture.js';

/** Larger than what is held in memory: streamed from the archive. */
const LARGE = Buffer.alloc(MEMORY_FILE_LIMIT + 200_000, 'large file, stored as it is. ');
const STYLESHEET = Array.from({ length: 300 }, (_, i) => `.rule-${i} { margin: ${i % 13}px; }\n`).join('');
const files = demoPackage({ 'content/large.bin': LARGE, 'content/style.css': STYLESHEET });

const work = temporaryDirectory('cap-verify-lazy-');

/** A real .cap of these files, with the security.json of the intact ones: a valid archive whose checksums may not match. */
async function writeCap(name: string, replaced: Record<string, string | Uint8Array> = {}): Promise<string> {
  const sink = await new ZipArchiveWriter().create(work.path, name, { overwrite: false });
  for (const [path, data] of Object.entries({ ...files, ...replaced })) await sink.add(path, Buffer.from(data), { store: path === 'content/large.bin' });
  await sink.add('security.json', Buffer.from(securityFor(files)), { store: false });
  return (await sink.commit()).path;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Set when the connection broke after the status line: a promise the headers made and the body did not keep. */
  broken?: true;
}

function ask(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(base + path, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      const answer = () => ({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) });
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(answer()));
      response.on('error', () => resolve({ ...answer(), broken: true }));
    });
    request.on('error', reject);
    request.end();
  });
}

let intact: string;
let tamperedLarge: string;
let tamperedStyle: string;
beforeAll(async () => {
  intact = await writeCap('intact.cap');
  const large = Buffer.from(LARGE);
  large[LARGE.length - 1] ^= 1;
  tamperedLarge = await writeCap('tampered-large.cap', { 'content/large.bin': large });
  tamperedStyle = await writeCap('tampered-style.cap', { 'content/style.css': STYLESHEET.replace('rule-7', 'rule-X') });
});
afterAll(() => work.remove());

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function serveLazily(cap: string): Promise<string> {
  const fixture = await startReactor(productionOpener(), [{ source: cap }], { verify: 'lazy' });
  stop = fixture.stop;
  expect(fixture.failures).toEqual([]);
  const address: AddressInfo = await fixture.server.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${address.port}`;
}

function expectRefused(answer: Answer): void {
  expect(answer.broken).toBeUndefined();
  expect(answer.status).toBe(503);
  expect(JSON.parse(answer.body.toString()).error.code).toBe('PACKAGE_OUT_OF_SERVICE');
}

describe('--verify lazy on a real .cap', () => {
  it('streams an intact large file, whole and by range, with the checksum as its ETag', async () => {
    const base = await serveLazily(intact);
    const range = await ask(base, '/large.bin', { Range: 'bytes=100-199' });
    expect(range.status).toBe(206);
    expect(range.body).toEqual(LARGE.subarray(100, 200));
    const whole = await ask(base, '/large.bin');
    expect(whole.status).toBe(200);
    expect(whole.body.equals(LARGE)).toBe(true);
    expect(whole.headers.etag).toBe(`"${hasher.sha256(LARGE)}"`);
    const gzip = await ask(base, '/style.css', { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(STYLESHEET);
  });

  it.each([
    ['a range of it', { Range: 'bytes=0-9' }, 'GET'],
    ['a HEAD', {}, 'HEAD'],
    ['all of it', {}, 'GET'],
  ])('answers 503 before any byte when the first request for a tampered streamed file asks %s', async (_, headers, method) => {
    const base = await serveLazily(tamperedLarge);
    const answer = await ask(base, '/large.bin', headers, method);
    expect(answer.status).toBe(503);
    if (method === 'GET') expectRefused(answer);
    expectRefused(await ask(base, '/index.html'));
  });

  it('answers 503, not the raw deflate bytes, when the first request for a tampered deflated file accepts gzip', async () => {
    const base = await serveLazily(tamperedStyle);
    expectRefused(await ask(base, '/style.css', { 'Accept-Encoding': 'gzip' }));
    expectRefused(await ask(base, '/style.css'));
  });

  it('refuses a file already held in memory, and conditional requests for it, once another file fails', async () => {
    const base = await serveLazily(tamperedLarge);
    const first = await ask(base, '/style.css');
    expect(first.status).toBe(200);
    expectRefused(await ask(base, '/large.bin', { Range: 'bytes=5-6' }));
    expectRefused(await ask(base, '/style.css'));
    expectRefused(await ask(base, '/style.css', { 'If-None-Match': first.headers.etag! }));
  });
});
