import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ZlibCompressor } from '../../src/adapters/system/zlib-compressor.js';
import type { CompressionEffort, ContentCoding, Compressor } from '../../src/application/ports/compressor.js';
import { ByteBudget } from '../../src/application/serving/byte-budget.js';
import { PORT, SERVICE } from '../../src/composition/service-ids.js';
import { writePackage } from '../support/composite-fixtures.js';
import { demoPackage } from '../support/demo-package.js';
import { temporaryDirectory } from '../support/paths.js';
import { productionOpener, swap } from '../support/production-container.js';
import { rawRequest } from '../support/raw-http.js';
import { startListening, writeCap } from '../support/listening-reactor.js';

/** A compressible stylesheet of about 20 KB. */
const STYLESHEET = Array.from({ length: 400 }, (_, i) => `.rule-${i} { color: #${(i * 2654435761).toString(16).slice(-6).padStart(6, '0')}; margin: ${i % 17}px; }\n`).join('');
const NOTES = 'Notes written through the reactor, one line after another.\n'.repeat(80);
const BOTH = { 'Accept-Encoding': 'gzip, deflate, br, zstd' };

/** zlib, counted, and held back on demand: what was compressed, and when. */
class WatchedZlib implements Compressor {
  readonly calls: string[] = [];
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  private readonly zlib = new ZlibCompressor();

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  letGo(): void {
    this.open?.();
  }

  async compress(coding: ContentCoding, bytes: Uint8Array, effort: CompressionEffort): Promise<Uint8Array> {
    this.calls.push(`${coding} ${bytes.length}`);
    await this.gate;
    return this.zlib.compress(coding, bytes, effort);
  }
}

function decoded(answer: { headers: { 'content-encoding'?: string }; body: Buffer }): string {
  const coding = answer.headers['content-encoding'];
  return (coding === 'br' ? brotliDecompressSync(answer.body) : coding === 'gzip' ? gunzipSync(answer.body) : answer.body).toString();
}

const work = temporaryDirectory('cap-compressed-');
const directory = join(work.path, 'site');
const compressor = new WatchedZlib();
const budget = new ByteBudget(8 * 1024 * 1024);
let fixture: Awaited<ReturnType<typeof startListening>>;
const get = (path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) => rawRequest(fixture.base + path, headers, method, body);

beforeAll(async () => {
  const files = demoPackage({ 'content/style.css': STYLESHEET, 'content/stored.txt': STYLESHEET });
  const cap = await writeCap(work.path, 'site.cap', files, ['content/stored.txt']);
  writePackage(directory, { name: 'dir-site', version: '1.0.0', guid: 'pkg://example.org/dir-site' }, { 'content/style.css': STYLESHEET });
  writeFileSync(join(directory, 'content/photo.png'), new Uint8Array(4000).map((_, i) => (i * 7919) % 256));

  // The archive's background pass waits until the test lets it go.
  compressor.hold();
  fixture = await startListening(productionOpener(), [{ source: cap }, { source: directory, prefix: '/dir' }], {}, swap(PORT.Compressor, compressor), swap(SERVICE.ByteBudget, budget));
});
afterAll(async () => {
  await fixture.stop();
  work.remove();
});

describe('ZlibCompressor', () => {
  it('gives gzip and brotli that decode to the bytes at every effort, brotli smallest at the background pass\'s best', async () => {
    const zlib = new ZlibCompressor();
    const bytes = new TextEncoder().encode(STYLESHEET);
    const sizes: Partial<Record<CompressionEffort, number>> = {};
    for (const effort of ['prompt', 'steady', 'thorough'] as const) {
      expect(gunzipSync(await zlib.compress('gzip', bytes, effort))).toEqual(Buffer.from(bytes));
      const br = await zlib.compress('br', bytes, effort);
      expect(brotliDecompressSync(br)).toEqual(Buffer.from(bytes));
      sizes[effort] = br.length;
    }
    expect(sizes.thorough).toBeLessThanOrEqual(sizes.steady!);
    expect(sizes.steady).toBeLessThan(bytes.length / 3);
  });
});

describe('a .cap: gzip from the archive, brotli once the background pass made it', () => {
  it('answers gzip to a brotli client until the copy is ready, then brotli, each with its own ETag', async () => {
    const before = await get('/style.css', BOTH);
    expect(before.headers['content-encoding']).toBe('gzip');
    expect(decoded(before)).toBe(STYLESHEET);
    compressor.letGo();
    await fixture.reactor.all()[0]!.pkg.compressInBackground();
    const br = await get('/style.css', BOTH);
    expect(br.headers['content-encoding']).toBe('br');
    expect(decoded(br)).toBe(STYLESHEET);
    expect(br.body.length).toBeLessThan(before.body.length);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers.etag).toBe(before.headers.etag!.replace(/-gzip"$/, '-br"'));
    const notModified = await get('/style.css', { ...BOTH, 'If-None-Match': br.headers.etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(br.headers.etag);
    expect(notModified.headers['content-encoding']).toBeUndefined();
    expect((await get('/style.css', { 'Accept-Encoding': 'gzip', 'If-None-Match': br.headers.etag! })).status).toBe(200);
    expect((await get('/style.css', { 'Accept-Encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
    const head = await get('/style.css', BOTH, 'HEAD');
    expect([head.headers['content-encoding'], head.headers['content-length'], head.body.length]).toEqual(['br', String(br.body.length), 0]);
    // The pass compressed the one text entry worth it, once: the stored one stays identity.
    expect(compressor.calls).toEqual([`br ${Buffer.byteLength(STYLESHEET)}`]);
    const stored = await get('/stored.txt', BOTH);
    expect(stored.headers['content-encoding']).toBeUndefined();
    expect(stored.headers.vary).toBeUndefined();
  });

  it('answers a range from the identity bytes', async () => {
    const partial = await get('/style.css', { ...BOTH, Range: 'bytes=0-99' });
    expect(partial.status).toBe(206);
    expect(partial.headers['content-encoding']).toBeUndefined();
    expect(partial.body.toString()).toBe(STYLESHEET.slice(0, 100));
  });
});

describe('a directory source: compressed once per version of a file', () => {
  it('answers brotli and gzip that decode to the file, compressing each once', async () => {
    compressor.calls.length = 0;
    const identity = await get('/dir/style.css');
    const answers = [await get('/dir/style.css', BOTH), await get('/dir/style.css', BOTH), await get('/dir/style.css', { 'Accept-Encoding': 'gzip' }), await get('/dir/style.css', { 'Accept-Encoding': 'gzip' })];
    expect(answers.map((answer) => answer.headers['content-encoding'])).toEqual(['br', 'br', 'gzip', 'gzip']);
    for (const answer of answers) expect(decoded(answer)).toBe(STYLESHEET);
    expect(compressor.calls).toEqual([`br ${STYLESHEET.length}`, `gzip ${STYLESHEET.length}`]);
    expect(new Set([identity, answers[0]!, answers[2]!].map((answer) => answer.headers.etag)).size).toBe(3);
    for (const answer of [identity, ...answers]) expect(answer.headers.vary).toBe('Accept-Encoding');
    expect((await get('/dir/style.css', { ...BOTH, 'If-None-Match': answers[0]!.headers.etag! })).status).toBe(304);
    expect((await get('/dir/style.css', { 'Accept-Encoding': 'gzip', 'If-None-Match': answers[2]!.headers.etag! })).status).toBe(304);
    const partial = await get('/dir/style.css', { ...BOTH, Range: 'bytes=5-9' });
    expect([partial.status, partial.headers['content-encoding'], partial.body.toString()]).toEqual([206, undefined, STYLESHEET.slice(5, 10)]);
  });

  it('compresses the new bytes after the file is edited, and never sends the old copy', async () => {
    const before = await get('/dir/style.css', BOTH);
    const edited = STYLESHEET.replace('.rule-0 ', '.edited ');
    writeFileSync(join(directory, 'content/style.css'), edited);
    const after = await get('/dir/style.css', BOTH);
    expect(decoded(after)).toBe(edited);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await get('/dir/style.css', { ...BOTH, 'If-None-Match': before.headers.etag! })).status).toBe(200);
  });

  it('leaves compressed media identity, without Vary', async () => {
    const photo = await get('/dir/photo.png', BOTH);
    expect(photo.headers['content-encoding']).toBeUndefined();
    expect(photo.headers.vary).toBeUndefined();
  });
});

describe('overlay files', () => {
  it('are compressed once after a PUT, and again after the next one', async () => {
    expect((await get('/notes.txt', { 'Content-Type': 'text/plain' }, 'PUT', NOTES)).status).toBeLessThan(300);
    compressor.calls.length = 0;
    const first = [await get('/notes.txt', BOTH), await get('/notes.txt', BOTH)];
    for (const answer of first) expect([answer.headers['content-encoding'], decoded(answer)]).toEqual(['br', NOTES]);
    expect(compressor.calls).toEqual([`br ${NOTES.length}`]);
    const rewritten = NOTES.toUpperCase();
    expect((await get('/notes.txt', { 'Content-Type': 'text/plain' }, 'PUT', rewritten)).status).toBeLessThan(300);
    const second = await get('/notes.txt', { 'Accept-Encoding': 'gzip' });
    expect([second.headers['content-encoding'], decoded(second)]).toEqual(['gzip', rewritten]);
    expect(decoded(await get('/notes.txt', BOTH))).toBe(rewritten);
    expect((await get('/notes.txt', { ...BOTH, 'If-None-Match': first[0]!.headers.etag! })).status).toBe(200);
    expect((await get('/notes.txt', {}, 'DELETE')).status).toBeLessThan(300);
    expect((await get('/notes.txt', BOTH)).status).toBe(404);
  });
});

describe('the byte budget', () => {
  it('holds the copies, and every byte comes back when the reactor stops', async () => {
    const small = new ByteBudget(STYLESHEET.length + 1000);
    const counted = new WatchedZlib();
    const other = await startListening(productionOpener(), [{ source: directory }], {}, swap(PORT.Compressor, counted), swap(SERVICE.ByteBudget, small));
    try {
      // The plain bytes fill the budget: no room to compress, so identity and no work at all.
      const answer = await rawRequest(`${other.base}/style.css`, BOTH);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary).toBe('Accept-Encoding');
      expect(counted.calls).toEqual([]);
      expect(small.inUse).toBeGreaterThan(0);
    } finally {
      await other.stop();
    }
    expect(small.inUse).toBe(0);
    expect(budget.inUse).toBeGreaterThan(0);
  });
});
