import { describe, expect, it } from '@jest/globals';
import { NodeHasher } from '../../../src/adapters/crypto/node-hasher.js';
import { VerifyOnReadSource } from '../../../src/application/integrity/verify-on-read-source.js';
import type { PackageSource } from '../../../src/application/ports/package-source.js';
import { PackageFormatError, PackageOutOfServiceError, SourceNotFoundError } from '../../../src/domain/errors.js';
import { MemoryPackageSource } from '../../fakes/memory-package-source.js';

const hasher = new NodeHasher();
const INTACT = { 'metadata.json': '{"name":"x"}', 'content/a.txt': 'alpha', 'content/b.txt': 'bravo' };
const checksums = Object.fromEntries(Object.entries(INTACT).map(([path, text]) => [path, hasher.sha256(text)]));

/** A memory package that counts how often each file is streamed. */
class CountingSource extends MemoryPackageSource {
  readonly streams = new Map<string, number>();

  override stream(path: string): AsyncIterable<Uint8Array> {
    this.streams.set(path, (this.streams.get(path) ?? 0) + 1);
    return super.stream(path);
  }
}

/** A memory package whose files may change while served, like a directory: each write is a new version. */
class EditedSource extends MemoryPackageSource {
  private readonly versions = new Map<string, number>();

  constructor(private readonly held: Record<string, Uint8Array>) {
    super(held);
  }

  edit(path: string, text: string): void {
    this.held[path]!.set(new TextEncoder().encode(text));
    this.versions.set(path, (this.versions.get(path) ?? 0) + 1);
  }

  override async read(path: string): Promise<Uint8Array> {
    return this.held[path]!;
  }

  async current(path: string): Promise<{ size: number; version: string }> {
    return { size: this.held[path]!.length, version: String(this.versions.get(path) ?? 0) };
  }
}

/** A memory package that reads a range where it lies, as a directory or an archive's stored entries do. */
class RangedSource extends MemoryPackageSource {
  range(path: string, start: number, end: number): AsyncIterable<Uint8Array> {
    const read = () => this.read(path);
    return (async function* () {
      yield (await read()).subarray(start, end + 1);
    })();
  }
}

function lazy(files: Record<string, string | Uint8Array>, source: PackageSource = new MemoryPackageSource(files)) {
  return new VerifyOnReadSource(source, { checksums }, hasher);
}

async function collect(stream: AsyncIterable<Uint8Array>, into: Uint8Array[]): Promise<void> {
  for await (const chunk of stream) into.push(chunk);
}

describe('VerifyOnReadSource (--verify lazy)', () => {
  it('checks the whole file before the first byte of a range, and hands out the range of an intact one', async () => {
    const source = lazy(INTACT, new RangedSource(INTACT));
    const part: Uint8Array[] = [];
    await collect(source.range('content/a.txt', 1, 3)!, part);
    expect(Buffer.concat(part).toString()).toBe('lph');
    const tampered = lazy({ ...INTACT, 'content/b.txt': 'BRAVO' }, new RangedSource({ ...INTACT, 'content/b.txt': 'BRAVO' }));
    const none: Uint8Array[] = [];
    await expect(collect(tampered.range('content/b.txt', 0, 1)!, none)).rejects.toThrow(PackageOutOfServiceError);
    expect(none).toEqual([]);
    expect(lazy(INTACT).range('content/a.txt', 0, 1)).toBeUndefined();
  });

  it('hands out intact files as read or streamed, and stays in service', async () => {
    const source = lazy(INTACT);
    expect(new TextDecoder().decode(await source.read('content/a.txt'))).toBe('alpha');
    const chunks: Uint8Array[] = [];
    await collect(source.stream('content/b.txt'), chunks);
    expect(Buffer.concat(chunks).toString()).toBe('bravo');
    expect(source.guard.outOfService).toBeUndefined();
  });

  it('refuses a tampered file on its first read and takes the whole package out of service', async () => {
    const source = lazy({ ...INTACT, 'content/a.txt': 'ALPHA' });
    const withdrawn: Array<readonly string[]> = [];
    source.guard.onWithdraw((reasons) => withdrawn.push(reasons));
    await expect(source.read('content/a.txt')).rejects.toThrow(PackageOutOfServiceError);
    expect(withdrawn).toEqual([['checksum mismatch: content/a.txt']]);
    // An intact file is refused too from now on, and the verdict is not repeated.
    await expect(source.read('content/b.txt')).rejects.toThrow(/out of service.*checksum mismatch: content\/a\.txt/);
    await expect(source.ensure('content/b.txt')).rejects.toThrow(PackageOutOfServiceError);
    expect(withdrawn).toHaveLength(1);
    expect(source.guard.outOfService?.code).toBe('PACKAGE_OUT_OF_SERVICE');
  });

  it('streams a tampered file not one byte: the whole file is checked before the first chunk', async () => {
    const source = lazy({ ...INTACT, 'content/b.txt': 'BRAVO' });
    const chunks: Uint8Array[] = [];
    await expect(collect(source.stream('content/b.txt'), chunks)).rejects.toThrow(PackageOutOfServiceError);
    expect(chunks).toEqual([]);
  });

  it('takes a file no checksum covers for a mismatch, and lets security.json through unchecked', async () => {
    const source = lazy({ ...INTACT, 'security.json': '{}', 'content/extra.txt': 'extra' });
    expect(new TextDecoder().decode(await source.read('security.json'))).toBe('{}');
    expect(source.guard.outOfService).toBeUndefined();
    await expect(source.read('content/extra.txt')).rejects.toThrow(/file not covered by checksums: content\/extra\.txt/);
  });

  it('checks a file once, however many first readers ask at the same time', async () => {
    const counting = new CountingSource(INTACT);
    const source = lazy(INTACT, counting);
    await Promise.all([source.ensure('content/a.txt'), source.ensure('content/a.txt'), source.ensure('content/a.txt')]);
    const chunks: Uint8Array[] = [];
    await collect(source.stream('content/a.txt'), chunks);
    // One stream to check, one to serve.
    expect(counting.streams.get('content/a.txt')).toBe(2);
  });

  it('checks a file that may change again once its version changes', async () => {
    const edited = new EditedSource(Object.fromEntries(Object.entries(INTACT).map(([path, text]) => [path, new TextEncoder().encode(text)])));
    const source = lazy(INTACT, edited);
    await source.ensure('content/a.txt');
    edited.edit('content/a.txt', 'ALPHA');
    await expect(source.read('content/a.txt')).rejects.toThrow(/checksum mismatch: content\/a\.txt/);
  });

  it('takes a file whose bytes cannot be read back (a corrupt entry) for a mismatch, read or streamed; other errors pass through', async () => {
    class CorruptSource extends MemoryPackageSource {
      override async read(path: string): Promise<Uint8Array> {
        if (path === 'content/a.txt') throw new PackageFormatError(`${this.location}: corrupt entry ${path}: invalid code lengths set`);
        return super.read(path);
      }

      override async *stream(path: string): AsyncIterable<Uint8Array> {
        yield await this.read(path);
      }
    }
    for (const first of ['read', 'stream'] as const) {
      const source = lazy(INTACT, new CorruptSource(INTACT));
      const reading = first === 'read' ? source.read('content/a.txt') : collect(source.stream('content/a.txt'), []);
      await expect(reading).rejects.toThrow(new PackageOutOfServiceError('this package is out of service: it failed verification against its security.json (corrupt entry content/a.txt: invalid code lengths set); nothing of it is served until it is replaced', []));
      await expect(source.read('content/b.txt')).rejects.toBeInstanceOf(PackageOutOfServiceError);
    }
    // A file that is not there is not a verdict on the package's bytes.
    const missing = lazy(INTACT);
    await expect(missing.read('content/nope.txt')).rejects.toBeInstanceOf(SourceNotFoundError);
    expect(new TextDecoder().decode(await missing.read('content/b.txt'))).toBe('bravo');
    expect(missing.guard.outOfService).toBeUndefined();
  });

  it('passes what the archive holds through: kind, location and entries', async () => {
    const inner = new MemoryPackageSource(INTACT, 'mem:site');
    const source = lazy(INTACT, inner);
    expect([source.kind, source.location, source.has('content/a.txt')]).toEqual(['memory', 'mem:site', true]);
    expect(source.entries()).toEqual(inner.entries());
    expect(source.unverified).toBe(inner);
  });
});
