import { describe, expect, it } from '@jest/globals';
import { PrefetchedSource } from '../../../src/application/package/prefetched-source.js';
import { MemoryPackageSource } from '../../fakes/memory-package-source.js';

/** A source that counts its reads, and fails the ones of `broken` paths. */
class CountingSource extends MemoryPackageSource {
  readonly reads: string[] = [];
  constructor(
    files: Record<string, string>,
    private readonly broken: ReadonlySet<string> = new Set(),
  ) {
    super(files);
  }
  override async read(path: string): Promise<Uint8Array> {
    this.reads.push(path);
    if (this.broken.has(path)) throw new Error(`cannot read ${path}`);
    return super.read(path);
  }
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('PrefetchedSource', () => {
  it('asks for every given file that exists at once, and hands each early read out once', async () => {
    const inner = new CountingSource({ 'a.json': 'A', 'b.json': 'B', 'content/x.html': 'X' });
    const source = new PrefetchedSource(inner, ['a.json', 'absent.json', 'b.json']);
    expect(inner.reads).toEqual(['a.json', 'b.json']);
    expect(text(await source.read('b.json'))).toBe('B');
    expect(text(await source.read('a.json'))).toBe('A');
    expect(inner.reads).toEqual(['a.json', 'b.json']);
    // Asked again, or for another file: read as usual.
    expect(text(await source.read('a.json'))).toBe('A');
    expect(text(await source.read('content/x.html'))).toBe('X');
    expect(inner.reads).toEqual(['a.json', 'b.json', 'a.json', 'content/x.html']);
  });

  it('fails a read whose early read failed only when it is asked for, and never as an unhandled rejection', async () => {
    const inner = new CountingSource({ 'a.json': 'A', 'b.json': 'B' }, new Set(['b.json']));
    const source = new PrefetchedSource(inner, ['a.json', 'b.json']);
    // A turn of the event loop with the failed read not yet asked for: no unhandled rejection ends the test run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(text(await source.read('a.json'))).toBe('A');
    await expect(source.read('b.json')).rejects.toThrow('cannot read b.json');
  });
});
