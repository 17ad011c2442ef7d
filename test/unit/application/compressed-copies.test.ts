import { afterEach, describe, expect, it } from '@jest/globals';
import { NodeHasher } from '../../../src/adapters/crypto/node-hasher.js';
import { BackgroundBrotli, type BrotliCandidate } from '../../../src/application/serving/background-brotli.js';
import { OwnedSource } from '../../../src/application/package/owned-source.js';
import type { DeflatedEntry } from '../../../src/application/ports/package-source.js';
import { ByteBudget } from '../../../src/application/serving/byte-budget.js';
import { CompressedCopies } from '../../../src/application/serving/compressed-copies.js';
import type { StaticFile } from '../../../src/application/serving/served-package.js';
import { PORT, SERVICE } from '../../../src/composition/service-ids.js';
import { CountingCompressor, encodeFake } from '../../fakes/counting-compressor.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { MemoryPackageSource } from '../../fakes/memory-package-source.js';
import { demoPackage } from '../../support/demo-package.js';
import { startReactor } from '../../support/reactor-fixture.js';
import { swap } from '../../support/production-container.js';

const hasher = new NodeHasher();
const text = (n: number, seed = 'a') => new TextEncoder().encode(`${seed} line of text\n`.repeat(Math.ceil(n / 16)).slice(0, n));

describe('compressed copies within the byte budget', () => {
  it('keeps a smaller copy and counts only its bytes', async () => {
    const budget = new ByteBudget(10_000);
    const compressor = new CountingCompressor();
    const made = await new CompressedCopies(compressor, budget).make('br', text(4000), 'prompt');
    expect(made).toEqual({ kind: 'copy', bytes: encodeFake('br', text(4000)) });
    expect(budget.inUse).toBe(encodeFake('br', text(4000)).length);
  });

  it('compresses nothing when the budget has no room for the body, and keeps nothing that is not smaller', async () => {
    const compressor = new CountingCompressor();
    const full = new ByteBudget(3000);
    expect(await new CompressedCopies(compressor, full).make('gzip', text(4000), 'prompt')).toEqual({ kind: 'no-room' });
    expect(compressor.calls).toEqual([]);
    const budget = new ByteBudget(10_000);
    expect(await new CompressedCopies(new CountingCompressor(0.5), budget).make('gzip', text(4000), 'prompt')).toEqual({ kind: 'not-smaller' });
    expect(budget.inUse).toBe(0);
  });

  it('compresses a body once per coding while it lives, and tries again when the budget had no room', async () => {
    const budget = new ByteBudget(5000);
    const compressor = new CountingCompressor();
    const copies = new CompressedCopies(compressor, budget);
    const body = text(2000);
    const [first, second] = await Promise.all([copies.ofBody(body, 'br'), copies.ofBody(body, 'br')]);
    expect(first).toBe(second);
    expect(await copies.ofBody(body, 'br')).toBe(first);
    expect(compressor.calls.map((call) => call.coding)).toEqual(['br']);
    expect(budget.inUse).toBe(first!.length);
    budget.take(budget.limit - budget.inUse);
    expect(await copies.ofBody(body, 'gzip')).toBeUndefined();
    budget.give(budget.limit);
    expect(await copies.ofBody(body, 'gzip')).toEqual(encodeFake('gzip', body));
    expect(compressor.calls.map((call) => call.coding)).toEqual(['br', 'gzip']);
  });
});

describe('a served file compressed once per version', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  async function serve(files: Record<string, string | Uint8Array>) {
    const budget = new ByteBudget(1024 * 1024);
    const compressor = new CountingCompressor();
    const fixture = await startReactor(new MemoryOpener().add('site', demoPackage(files)), [{ source: 'site' }], {}, swap(PORT.Compressor, compressor), swap(SERVICE.ByteBudget, budget));
    stop = fixture.stop;
    const mount = fixture.reactor.all()[0]!;
    const file = async (path: string): Promise<StaticFile> => {
      const found = await mount.pkg.lookup(path);
      if (found.kind !== 'hit') throw new Error(`${path}: ${found.kind}`);
      return found.file;
    };
    return { budget, compressor, mount, file, fixture };
  }

  it('makes each coding on its first answer, once, and counts the copies in the budget', async () => {
    const page = text(3000);
    const { budget, compressor, file } = await serve({ 'content/page.txt': page });
    const served = await file('/page.txt');
    const held = budget.inUse;
    const [br, again] = await Promise.all([served.encodings!.br!.prepare(), served.encodings!.br!.prepare()]);
    expect(br).toEqual(encodeFake('br', page));
    expect(again).toBe(br);
    expect(served.encodings!.br!.etag).toBe(served.etag.replace(/"$/, '-br"'));
    expect(await (await file('/page.txt')).encodings!.gzip!.prepare()).toEqual(encodeFake('gzip', page));
    expect(await (await file('/page.txt')).encodings!.br!.prepare()).toBe(br);
    expect(compressor.calls.map(({ coding, effort }) => `${coding} ${effort}`)).toEqual(['br prompt', 'gzip prompt']);
    expect(budget.inUse).toBe(held + encodeFake('br', page).length + encodeFake('gzip', page).length);
  });

  it('leaves small files and compressed media identity', async () => {
    const png = new Uint8Array(4000).map((_, i) => (i * 7919) % 256);
    const { file } = await serve({ 'content/small.txt': 'short', 'content/photo.png': png });
    expect((await file('/small.txt')).encodings).toBeUndefined();
    expect((await file('/photo.png')).encodings).toBeUndefined();
  });

  it('drops the copies with the plain bytes when the file is written again or deleted', async () => {
    const { budget, mount, file } = await serve({});
    await mount.content.put('/notes.txt', text(3000, 'old'), 'text/plain');
    const before = await file('/notes.txt');
    await before.encodings!.br!.prepare();
    await before.encodings!.gzip!.prepare();
    await mount.content.put('/notes.txt', text(3000, 'new'), 'text/plain');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(before.encodings!.br!.refused).toBe(true);
    expect(before.encodings!.br!.body).toBeUndefined();
    const after = await file('/notes.txt');
    expect(after.etag).not.toBe(before.etag);
    expect(await after.encodings!.br!.prepare()).toEqual(encodeFake('br', text(3000, 'new')));
    const held = budget.inUse;
    await mount.content.delete('/notes.txt');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(after.encodings!.br!.refused).toBe(true);
    expect(budget.inUse).toBe(held - 3000 - encodeFake('br', text(3000, 'new')).length);
  });

  it('gives a copy made while its file was rewritten back at once', async () => {
    const { budget, compressor, mount, file } = await serve({});
    await mount.content.put('/notes.txt', text(3000, 'old'), 'text/plain');
    const before = await file('/notes.txt');
    compressor.hold();
    const making = before.encodings!.gzip!.prepare();
    await mount.content.put('/notes.txt', text(2000, 'new'), 'text/plain');
    compressor.letGo();
    expect(await making).toBeUndefined();
    await file('/notes.txt');
    expect(budget.inUse).toBe(2000);
  });

  it('gives every byte back to the budget when the package is closed', async () => {
    const { budget, file, fixture } = await serve({ 'content/page.txt': text(3000) });
    await (await file('/page.txt')).encodings!.br!.prepare();
    expect(budget.inUse).toBeGreaterThan(3000);
    await fixture.stop();
    stop = undefined;
    expect(budget.inUse).toBe(0);
  });
});

describe('brotli copies of archive entries in the background', () => {
  const files = { 'content/a.css': text(3000, 'a'), 'content/b.js': text(3000, 'b'), 'content/c.svg': text(3000, 'c') };
  const source = new MemoryPackageSource(files);
  const candidates = (overrides: Partial<BrotliCandidate> = {}): BrotliCandidate[] => Object.entries(files).map(([key, bytes]) => ({ key, size: bytes.length, gzipSize: 1500, ...overrides }));

  it('compresses one entry at a time, thoroughly, and hands each copy out once ready', async () => {
    const compressor = new CountingCompressor();
    const budget = new ByteBudget(100_000);
    const pass = new BackgroundBrotli(source, candidates(), new CompressedCopies(compressor, budget), hasher);
    const form = pass.representation('content/a.css', 'abc')!;
    expect(form.etag).toBe('"abc-br"');
    expect(form.body).toBeUndefined();
    expect(await form.prepare()).toBeUndefined();
    expect(pass.representation('content/other.css', 'abc')).toBeUndefined();
    await pass.done;
    expect(compressor.mostAtOnce).toBe(1);
    expect(compressor.calls.map((call) => call.effort)).toEqual(['thorough', 'thorough', 'thorough']);
    expect(form.body).toEqual(encodeFake('br', files['content/a.css']));
    expect(budget.inUse).toBe(3 * encodeFake('br', files['content/a.css']).length);
  });

  it('compresses the first THOROUGH_BYTES of text at the best quality and the rest steadily, so a large package does not keep a core busy for minutes', async () => {
    const compressor = new CountingCompressor();
    const pass = new BackgroundBrotli(source, candidates(), new CompressedCopies(compressor, new ByteBudget(100_000)), hasher, { thoroughBytes: 4000 });
    await pass.done;
    // 3,000 bytes leave 1,000 of the share: the second entry starts within it, the third after it.
    expect(compressor.calls.map((call) => call.effort)).toEqual(['thorough', 'thorough', 'steady']);
    expect(pass.copy('content/c.svg')).toEqual(encodeFake('br', files['content/c.svg']));
  });

  it('keeps no copy that is not smaller than the gzip answer', async () => {
    const budget = new ByteBudget(100_000);
    const pass = new BackgroundBrotli(source, candidates({ gzipSize: 500 }), new CompressedCopies(new CountingCompressor(), budget), hasher);
    const form = pass.representation('content/a.css', 'abc')!;
    expect(form.refused).toBe(false);
    await pass.done;
    expect(pass.copy('content/a.css')).toBeUndefined();
    // Over without a copy: answers stop asking for one.
    expect(form.refused).toBe(true);
    expect(budget.inUse).toBe(0);
  });

  it('makes no copy of bytes that are not the verified ones', async () => {
    const pass = new BackgroundBrotli(source, [{ key: 'content/a.css', size: 3000, gzipSize: 1500, sha256: hasher.sha256('other bytes') }], new CompressedCopies(new CountingCompressor(), new ByteBudget(100_000)), hasher);
    await pass.done;
    expect(pass.copy('content/a.css')).toBeUndefined();
  });

  it('stops for good the first time the budget has no room, leaving half of it to the requests', async () => {
    const compressor = new CountingCompressor();
    // Half of it holds the first entry while it is compressed, and its copy, but not the second entry as well.
    const budget = new ByteBudget(2 * (3000 + 500));
    const pass = new BackgroundBrotli(source, candidates(), new CompressedCopies(compressor, budget), hasher);
    await pass.done;
    expect(compressor.calls.length).toBe(1);
    expect(pass.copy('content/a.css')).toBeDefined();
    expect(pass.copy('content/b.js')).toBeUndefined();
    expect(budget.inUse).toBe(encodeFake('br', files['content/a.css']).length);
    const busy = new ByteBudget(100_000);
    busy.take(50_000);
    await new BackgroundBrotli(source, candidates(), new CompressedCopies(compressor, busy), hasher).done;
    expect(compressor.calls.length).toBe(1);
  });

  it('skips, unread, an entry too large for its half of the budget, and compresses the ones after it', async () => {
    const compressor = new CountingCompressor();
    const budget = new ByteBudget(2 * (3000 + 500));
    // A few hundred kilobytes of deflate may declare hundreds of megabytes: reading it to find out is what must not happen.
    const huge = { key: 'content/huge.json', size: 400_000_000, gzipSize: 600_000 };
    const read: string[] = [];
    const watched = Object.assign(Object.create(source) as MemoryPackageSource, { read: (key: string) => (read.push(key), source.read(key)) });
    const pass = new BackgroundBrotli(watched, [huge, candidates()[0]!], new CompressedCopies(compressor, budget), hasher);
    await pass.done;
    expect(read).toEqual(['content/a.css']);
    expect(pass.copy('content/a.css')).toEqual(encodeFake('br', files['content/a.css']));
  });

  it('reaches the deflated entries of a source owned by its package (a decrypted one, one with dependencies)', () => {
    const entry = { size: 3000, crc32: 0, compressedSize: 900 } as DeflatedEntry;
    const archive = Object.assign(new MemoryPackageSource(files), { deflated: (path: string) => (path === 'content/a.css' ? entry : undefined) });
    const owned = new OwnedSource(archive, async () => undefined);
    expect(owned.deflated?.('content/a.css')).toBe(entry);
    expect(owned.deflated?.('content/b.js')).toBeUndefined();
    expect(new OwnedSource(source, async () => undefined).deflated).toBeUndefined();
  });

  it('stops its pending work and gives every byte back when cancelled', async () => {
    const compressor = new CountingCompressor();
    const budget = new ByteBudget(100_000);
    const pass = new BackgroundBrotli(source, candidates(), new CompressedCopies(compressor, budget), hasher);
    while (compressor.calls.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    compressor.hold();
    while (compressor.calls.length < 3) await new Promise((resolve) => setTimeout(resolve, 1));
    const form = pass.representation('content/a.css', 'x')!;
    expect(form.body).toBeDefined();
    pass.cancel();
    expect(form.refused).toBe(true);
    expect(form.body).toBeUndefined();
    compressor.letGo();
    await pass.done;
    expect(budget.inUse).toBe(0);
    expect(pass.copy('content/c.svg')).toBeUndefined();
  });
});
