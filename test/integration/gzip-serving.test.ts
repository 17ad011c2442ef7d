import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { writeRawEntriesZip } from '../support/crafted-zip.js';
import { rawRequest } from '../support/raw-http.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { temporaryDirectory } from '../support/paths.js';
import { productionOpener } from '../support/production-container.js';
import { startListening, writeCap } from '../support/listening-reactor.js';

/** A compressible stylesheet of about 20 KB. */
const STYLESHEET = Array.from({ length: 400 }, (_, i) => `.rule-${i} { color: #${(i * 2654435761).toString(16).slice(-6).padStart(6, '0')}; margin: ${i % 17}px; }\n`).join('');
const PAGE = `<!doctype html><title>Gzip</title>${'<p>A paragraph of text that repeats.</p>\n'.repeat(60)}`;

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(fixture.base + path, headers, method);

const work = temporaryDirectory('cap-gzip-');
let fixture: Awaited<ReturnType<typeof startListening>>;
beforeAll(async () => {
  const files = demoPackage({ 'content/style.css': STYLESHEET, 'content/page.html': PAGE, 'content/stored.txt': STYLESHEET, 'content/small.txt': 'short text' });
  const cap = await writeCap(work.path, 'site.cap', files, ['content/stored.txt']);

  // An entry whose deflate stream is followed by bytes zlib ignores: its identity bytes are
  // right, but its raw bytes are not one honest deflate stream.
  const dishonest = Buffer.concat([deflateRawSync(Buffer.from(STYLESHEET)), Buffer.from('gzip trailer and a second member could hide here')]);
  const metadata = Buffer.from(JSON.stringify({ ...VALID_METADATA, name: 'dishonest' }));
  const crafted = join(work.path, 'dishonest.cap');
  writeRawEntriesZip(crafted, [
    { name: 'metadata.json', data: metadata, method: 0, crc: crc32(metadata), size: metadata.length },
    { name: 'content/style.css', data: dishonest, method: 8, crc: crc32(Buffer.from(STYLESHEET)), size: Buffer.byteLength(STYLESHEET) },
  ]);

  fixture = await startListening(productionOpener(), [{ source: cap }, { source: crafted, prefix: '/dishonest' }]);
});
afterAll(async () => {
  await fixture.stop();
  work.remove();
});

describe('gzip straight from the archive', () => {
  it('answers a deflated entry gzip-encoded: the raw deflate bytes framed, which gunzip to the file', async () => {
    const identity = await get('/style.css');
    const gzip = await get('/style.css', { 'Accept-Encoding': 'gzip, deflate' });
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.toString()).toBe(STYLESHEET);
    expect(gzip.status).toBe(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(gunzipSync(gzip.body).toString()).toBe(STYLESHEET);
    expect(gzip.body.subarray(0, 10)).toEqual(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]));
    expect(Number(gzip.headers['content-length'])).toBe(gzip.body.length);
    expect(gzip.body.length).toBeLessThan(identity.body.length * 0.4);
    for (const answer of [identity, gzip]) expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(identity.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(gzip.headers.etag).toBe(identity.headers.etag!.replace(/"$/, '-gzip"'));
  });

  it('answers If-None-Match for the representation it would send', async () => {
    const gzip = await get('/style.css', { 'Accept-Encoding': 'gzip' });
    const identity = await get('/style.css');
    const notModified = await get('/style.css', { 'Accept-Encoding': 'gzip', 'If-None-Match': gzip.headers.etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(gzip.headers.etag);
    expect(notModified.headers.vary).toBe('Accept-Encoding');
    expect(notModified.body.length).toBe(0);
    expect((await get('/style.css', { 'If-None-Match': identity.headers.etag! })).status).toBe(304);
    // The identity ETag does not name the gzip bytes, nor the gzip ETag the identity bytes.
    expect((await get('/style.css', { 'Accept-Encoding': 'gzip', 'If-None-Match': identity.headers.etag! })).status).toBe(200);
    expect((await get('/style.css', { 'If-None-Match': gzip.headers.etag! })).status).toBe(200);
  });

  it('answers a byte range from the identity bytes', async () => {
    const partial = await get('/style.css', { 'Accept-Encoding': 'gzip', Range: 'bytes=10-29' });
    expect(partial.status).toBe(206);
    expect(partial.headers['content-encoding']).toBeUndefined();
    expect(partial.headers['content-range']).toBe(`bytes 10-29/${Buffer.byteLength(STYLESHEET)}`);
    expect(partial.body.toString()).toBe(STYLESHEET.slice(10, 30));
    expect(partial.headers.vary).toBe('Accept-Encoding');
  });

  // Brotli is accepted by none of these: compressed-serving.test.ts covers it.
  it.each([['gzip;q=0'], ['identity'], ['*;q=0'], ['gzip;q=0, br;q=0, *']])('sends identity for Accept-Encoding: %s', async (accept) => {
    const answer = await get('/style.css', { 'Accept-Encoding': accept });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.toString()).toBe(STYLESHEET);
    expect(answer.headers.vary).toBe('Accept-Encoding');
  });

  it.each([['*, br;q=0'], ['x-gzip'], ['deflate, gzip;q=0.5'], ['GZIP;Q=1']])('sends gzip for Accept-Encoding: %s', async (accept) => {
    const answer = await get('/page.html', { 'Accept-Encoding': accept });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(answer.body).toString()).toBe(PAGE);
  });

  it('answers HEAD with the gzip headers and no body', async () => {
    const head = await get('/page.html', { 'Accept-Encoding': 'gzip' }, 'HEAD');
    const full = await get('/page.html', { 'Accept-Encoding': 'gzip' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers['content-length']).toBe(full.headers['content-length']);
    expect(head.headers.etag).toBe(full.headers.etag);
  });

  it('sends stored entries and small files as identity, without Vary', async () => {
    for (const [path, body] of [['/stored.txt', STYLESHEET], ['/small.txt', 'short text']] as const) {
      const answer = await get(path, { 'Accept-Encoding': 'gzip' });
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary).toBeUndefined();
      expect(answer.body.toString()).toBe(body);
    }
  });

  it('never sends gzip for an entry whose raw bytes are more than one deflate stream', async () => {
    for (let i = 0; i < 2; i++) {
      const answer = await get('/dishonest/style.css', { 'Accept-Encoding': 'gzip' });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.body.toString()).toBe(STYLESHEET);
    }
  });
});
