import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { writePackage } from '../support/composite-fixtures.js';
import { curlGet, HAS_CURL } from '../support/curl.js';
import { eventually } from '../support/eventually.js';
import { temporaryDirectory } from '../support/paths.js';
import { rawRequest, type RawAnswer } from '../support/raw-http.js';
import { runPkg } from '../support/run-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

jest.setTimeout(60_000);

/** A compressible stylesheet of about 20 KB. */
const STYLESHEET = Array.from({ length: 400 }, (_, i) => `.rule-${i} { color: #${(i * 2654435761).toString(16).slice(-6).padStart(6, '0')}; margin: ${i % 17}px; }\n`).join('');
const NOTES = 'Notes written through the reactor, one line after another.\n'.repeat(80);
const BOTH = { 'Accept-Encoding': 'gzip, deflate, br' };

const work = temporaryDirectory('cap-compressed-e2e-');
const directory = join(work.path, 'dir-site');
let running: ServeProcess;

beforeAll(async () => {
  const items = Array.from({ length: 100 }, (_, i) => ({ id: `item-${i}`, title: `Item number ${i}`, body: 'the same words again and again '.repeat(3) }));
  const packed = writePackage(join(work.path, 'cap-site'), { name: 'cap-site', version: '1.0.0', guid: 'pkg://example.org/cap-site' }, { 'content/style.css': STYLESHEET });
  expect(runPkg(['package', 'pack', packed, '-o', join(work.path, 'out')]).status).toBe(0);
  writePackage(directory, { name: 'dir-site', version: '1.0.0', guid: 'pkg://example.org/dir-site' }, {
    'content/style.css': STYLESHEET,
    'data/items.json': JSON.stringify(items),
    'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
  });
  running = await startServe([join(work.path, 'out/cap-site-1.0.0.cap'), directory, '--watch', '--workdir', join(work.path, 'workdir')]);
});
afterAll(async () => {
  await running?.stop();
  work.remove();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) => rawRequest(new URL(path, running.url), headers, method, body);

/** The body as the client reads it: decoded by its Content-Encoding. */
function decoded(answer: RawAnswer): string {
  const coding = answer.headers['content-encoding'];
  return (coding === 'br' ? brotliDecompressSync(answer.body) : coding === 'gzip' ? gunzipSync(answer.body) : answer.body).toString();
}

/** Identity, gzip and brotli answers of a path, which must all decode to the identity bytes; brotli once ready. */
async function expectEncodings(path: string): Promise<void> {
  const identity = await get(path);
  expect(identity.status).toBe(200);
  await eventually(async () => (await get(path, BOTH)).headers['content-encoding'] === 'br', `${path} answers brotli`);
  const br = await get(path, BOTH);
  const gzip = await get(path, { 'Accept-Encoding': 'gzip' });
  expect([identity.headers['content-encoding'], gzip.headers['content-encoding']]).toEqual([undefined, 'gzip']);
  for (const answer of [br, gzip]) {
    expect(decoded(answer)).toBe(identity.body.toString());
    expect(answer.body.length).toBeLessThan(identity.body.length * 0.4);
    expect(answer.headers.vary).toBe('Accept-Encoding');
  }
  expect(new Set([identity.headers.etag, br.headers.etag, gzip.headers.etag]).size).toBe(3);
}

describe('compressed answers of the built reactor', () => {
  it('sends a .cap entry, a directory file and a dataset as gzip and brotli that decode to the identity bytes', async () => {
    await expectEncodings('/style.css');
    await expectEncodings('/dir-site/style.css');
    await expectEncodings('/dir-site/api/v1/data/items');
  });

  it('compresses an overlay file after a PUT, and the new bytes after the next', async () => {
    expect((await get('/notes.txt', { 'Content-Type': 'text/plain' }, 'PUT', NOTES)).status).toBeLessThan(300);
    await expectEncodings('/notes.txt');
    const before = await get('/notes.txt', BOTH);
    expect((await get('/notes.txt', { 'Content-Type': 'text/plain' }, 'PUT', NOTES.toUpperCase())).status).toBeLessThan(300);
    const after = await get('/notes.txt', BOTH);
    expect([after.headers['content-encoding'], decoded(after)]).toEqual(['br', NOTES.toUpperCase()]);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('compresses a directory file again after it is edited under --watch', async () => {
    const edited = STYLESHEET.replaceAll('margin', 'padding');
    expect(decoded(await get('/dir-site/style.css', BOTH))).toBe(STYLESHEET);
    writeFileSync(join(directory, 'content/style.css'), edited);
    // A new file is served only once the package was loaded again: then every old copy is gone with the old version.
    writeFileSync(join(directory, 'content/marker.txt'), 'reloaded');
    await eventually(async () => (await get('/dir-site/marker.txt')).status === 200, 'the package is loaded again');
    for (const headers of [BOTH, { 'Accept-Encoding': 'gzip' }]) {
      const answer = await get('/dir-site/style.css', headers);
      expect([answer.headers['content-encoding'], decoded(answer)]).toEqual([headers['Accept-Encoding'] === 'gzip' ? 'gzip' : 'br', edited]);
    }
  });

  (HAS_CURL ? it : it.skip)('curl --compressed gets brotli and decodes it to the identity bytes', async () => {
    for (const path of ['/style.css', '/dir-site/style.css', '/notes.txt', '/dir-site/api/v1/data/items']) {
      const plain = curlGet(new URL(path, running.url).href);
      const compressed = curlGet(new URL(path, running.url).href, '--compressed');
      expect([path, compressed.status, plain.status]).toEqual([path, 0, 0]);
      expect([path, /content-encoding: (\S+)/.exec(compressed.headers)?.[1]]).toEqual([path, 'br']);
      expect(plain.headers).not.toContain('content-encoding');
      expect(compressed.body.equals(plain.body)).toBe(true);
    }
  });
});
