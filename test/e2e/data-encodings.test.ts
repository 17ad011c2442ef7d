import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { writePackage } from '../support/composite-fixtures.js';
import { temporaryDirectory } from '../support/paths.js';
import { rawRequest } from '../support/raw-http.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

jest.setTimeout(60_000);

const work = temporaryDirectory('cap-encodings-');
let running: ServeProcess;

beforeAll(async () => {
  const items = Array.from({ length: 200 }, (_, i) => ({ id: `item-${i}`, title: `Item number ${i}`, body: 'the same words again and again '.repeat(3) }));
  const site = writePackage(join(work.path, 'site'), { name: 'enc', version: '1.0.0', guid: 'pkg://example.org/enc' }, {
    'content/index.html': '<p>x</p>',
    'data/items.json': JSON.stringify(items),
    'data/tiny.json': JSON.stringify([{ id: 'a' }]),
    'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' }, tiny: { source: 'data/tiny.json' } } } }),
  });
  running = await startServe([site]);
});
afterAll(async () => {
  await running?.stop();
  work.remove();
});

const get = (path: string, headers: Record<string, string> = {}) => rawRequest(new URL(path, running.url), headers);

describe('compressed data answers', () => {
  it('sends a collection as brotli or gzip when asked, decoding to the identity bytes, each coding with its own tag', async () => {
    const identity = await get('/api/v1/data/items');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toBe('Accept-Encoding');
    const br = await get('/api/v1/data/items', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    expect(br.body.length).toBeLessThan(identity.body.length * 0.4);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    const gzip = await get('/api/v1/data/items', { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(identity.body)).toBe(true);
    const tags = new Set([identity.headers.etag, br.headers.etag, gzip.headers.etag]);
    expect(tags.size).toBe(3);
    const notModified = await get('/api/v1/data/items', { 'Accept-Encoding': 'br', 'If-None-Match': String(br.headers.etag) });
    // A 304 sends the Vary its 200 would (RFC 9110 §15.4.5).
    expect([notModified.status, notModified.headers.vary]).toEqual([304, 'Accept-Encoding']);
    expect((await get('/api/v1/data/items', { 'Accept-Encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();
    expect((await get('/api/v1/data/items', { 'Accept-Encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
  });

  it('compresses query answers too, and the next version after a write', async () => {
    const query = await get('/api/v1/data/items?sort=-id&limit=50', { 'Accept-Encoding': 'br' });
    expect(query.headers['content-encoding']).toBe('br');
    expect((JSON.parse(brotliDecompressSync(query.body).toString()) as unknown[]).length).toBe(50);
    const created = await fetch(`${running.url}/api/v1/data/items`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: 'zz-new', title: 'New', body: 'b' }) });
    expect(created.status).toBe(201);
    const after = await get('/api/v1/data/items', { 'Accept-Encoding': 'gzip' });
    const items = JSON.parse(gunzipSync(after.body).toString()) as Array<{ id: string }>;
    expect(items.at(-1)!.id).toBe('zz-new');
  });

  it('leaves small answers alone', async () => {
    const tiny = await get('/api/v1/data/tiny', { 'Accept-Encoding': 'br, gzip' });
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.headers.vary).toBeUndefined();
    expect(JSON.parse(tiny.body.toString())).toEqual([{ id: 'a' }]);
  });
});
