import { describe, expect, it } from '@jest/globals';
import { PrefetchedSource } from '../../../src/application/package/prefetched-source.js';
import { MAX_DATA_DOCUMENT_BYTES, MAX_DOCUMENT_BYTES, readDataDocument, readDataFile, readDocument } from '../../../src/application/package/package-reader.js';
import { ConfigParseError } from '../../../src/domain/errors.js';
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

  it('does not read a file listed as larger than a document may be: reading it as one refuses it unread', async () => {
    // Listed larger than it is: as a stranger's archive directory can declare.
    class Declaring extends CountingSource {
      override sizeOf(path: string): number | undefined {
        return path === 'routes.json' ? MAX_DOCUMENT_BYTES + 1 : super.sizeOf(path);
      }
    }
    const inner = new Declaring({ 'metadata.json': '{}', 'routes.json': '{}' });
    const source = new PrefetchedSource(inner, ['metadata.json', 'routes.json']);
    expect(inner.reads).toEqual(['metadata.json']);
    await expect(readDocument(source, 'routes.json')).rejects.toThrow(new ConfigParseError('routes.json', `holds ${MAX_DOCUMENT_BYTES + 1} bytes, more than the 64 MiB such a file may (refused unread)`));
    expect(inner.reads).toEqual(['metadata.json']);
  });
});

describe('documents read whole', () => {
  it('a dataset file (JSON, YAML or SQLite) may hold more than a configuration document, up to its own limit', async () => {
    class Sized extends MemoryPackageSource {
      constructor(private readonly declared: number) {
        super({ 'data/items.json': '[]' });
      }
      override sizeOf(): number {
        return this.declared;
      }
    }
    await expect(readDataDocument(new Sized(MAX_DOCUMENT_BYTES + 1), 'data/items.json')).resolves.toEqual([]);
    await expect(readDataDocument(new Sized(MAX_DATA_DOCUMENT_BYTES + 1), 'data/items.json')).rejects.toThrow(/data\/items\.json: holds \d+ bytes, more than the 128 MiB/);
    await expect(readDocument(new Sized(MAX_DOCUMENT_BYTES + 1), 'data/items.json')).rejects.toBeInstanceOf(ConfigParseError);
    // A SQLite database file likewise.
    await expect(readDataFile(new Sized(MAX_DATA_DOCUMENT_BYTES), 'data/items.json')).resolves.toHaveLength(2);
    await expect(readDataFile(new Sized(MAX_DATA_DOCUMENT_BYTES + 1), 'data/items.json')).rejects.toThrow(/more than the 128 MiB/);
  });
});
