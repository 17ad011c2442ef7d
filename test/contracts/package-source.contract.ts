import { afterEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { PackageOpener, PackageSource } from '../../src/application/ports/package-source.js';
import { SourceNotFoundError } from '../../src/domain/errors.js';
import { sortPaths } from '../../src/domain/package/package-paths.js';
import { bytes, collect, eachSubject, text, type Subject } from './subject.js';

export interface PackageSourceSubject {
  opener: PackageOpener;
  /** Puts a package holding these files where the opener can find it; resolves with its location. */
  put(files: Record<string, Uint8Array>): Promise<string>;
  /** A location where there is no package. */
  missing: string;
}

/** Names that sort differently by UTF-16 code units, by locale and by code point. */
const FILES: Record<string, string> = {
  'metadata.json': '{"name":"demo"}',
  'content/index.html': '<!doctype html><p>hi</p>',
  'content/docs/guide.html': '<p>guide</p>',
  'content/a-b.txt': 'dash',
  'content/a/b.txt': 'slash',
  'content/B.txt': 'upper',
  'content/b.txt': 'lower',
  'content/é.txt': 'accented: é',
  'content/ｚ.txt': 'full width',
  'content/😀.txt': 'astral',
  'content/empty.txt': '',
};

/** The promises of the PackageOpener and PackageSource ports (src/application/ports/package-source.ts). */
export function describePackageSourceContract(name: string, makeSubject: () => Promise<Subject<PackageSourceSubject>> | Subject<PackageSourceSubject>): void {
  describe(`${name} keeps the PackageSource contract`, () => {
    const subject = eachSubject(makeSubject);
    const opened: PackageSource[] = [];
    async function openSample(): Promise<PackageSource> {
      const location = await subject().put(Object.fromEntries(Object.entries(FILES).map(([path, value]) => [path, bytes(value)])));
      const source = await subject().opener.open(location);
      opened.push(source);
      return source;
    }
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((source) => source.close()));
    });

    it('lists files only, sorted by path in code-point order, with their sizes in bytes', async () => {
      const source = await openSample();
      // Entries may carry more than the port names (a directory's keep their file): path and size are the promise.
      expect(source.entries().map(({ path, size }) => ({ path, size }))).toEqual(sortPaths(Object.keys(FILES)).map((path) => ({ path, size: Buffer.byteLength(FILES[path]!) })));
      expect(source.location).toEqual(expect.any(String));
      expect(['directory', 'archive', 'memory']).toContain(source.kind);
    });

    it('has() every file, and nothing else: not a directory, not a missing file', async () => {
      const source = await openSample();
      for (const path of Object.keys(FILES)) expect(source.has(path)).toBe(true);
      for (const path of ['content', 'content/', 'content/docs', 'missing.txt', 'CONTENT/index.html']) expect(source.has(path)).toBe(false);
    });

    it('sizeOf() gives each file\'s listed size before reading it, and undefined for what is not a file', async () => {
      const source = await openSample();
      for (const path of Object.keys(FILES)) expect([path, source.sizeOf(path)]).toEqual([path, Buffer.byteLength(FILES[path]!)]);
      for (const path of ['content', 'content/', 'missing.txt']) expect(source.sizeOf(path)).toBeUndefined();
    });

    it('reads and streams each file\'s bytes', async () => {
      const source = await openSample();
      for (const [path, value] of Object.entries(FILES)) {
        expect(text(await source.read(path))).toBe(value);
        expect(text(await collect(source.stream(path)))).toBe(value);
      }
    });

    it('refuses to read or stream a file it does not have with SourceNotFoundError', async () => {
      const source = await openSample();
      for (const path of ['missing.txt', 'content', 'content/docs']) {
        await expect(source.read(path)).rejects.toThrow(SourceNotFoundError);
        // A stream may fail when asked for or when read: either is a failure the caller sees.
        await expect((async () => collect(source.stream(path)))()).rejects.toThrow(SourceNotFoundError);
      }
    });

    it('opening where there is no package is SourceNotFoundError', async () => {
      await expect(subject().opener.open(subject().missing)).rejects.toThrow(SourceNotFoundError);
    });

    it('where current() is offered, it gives each file\'s size now, and undefined for a file it does not have', async () => {
      const source = await openSample();
      if (source.current) {
        expect(await source.current('content/index.html')).toEqual({ size: Buffer.byteLength(FILES['content/index.html']!), version: expect.any(String) });
        expect(await source.current('missing.txt')).toBeUndefined();
      }
    });

    it('where range() is offered, a range it reads is exactly those bytes of the file, wherever they lie', async () => {
      // Incompressible: an archive stores it as it is, which is what a range is read from.
      const noise = randomBytes(300_000);
      const location = await subject().put({ 'metadata.json': bytes(FILES['metadata.json']!), 'content/noise.bin': noise, 'content/index.html': bytes(FILES['content/index.html']!) });
      const source = await subject().opener.open(location);
      opened.push(source);
      if (!source.range) return;
      for (const [start, end] of [[0, 0], [1, 10], [299_990, 299_999], [123_456, 234_567], [0, 299_999]] as const) {
        const read = source.range('content/noise.bin', start, end);
        if (read) expect(Buffer.from(await collect(read)).equals(noise.subarray(start, end + 1))).toBe(true);
      }
      const part = source.range('content/index.html', 2, 5);
      if (part) expect(text(await collect(part))).toBe(FILES['content/index.html']!.slice(2, 6));
    });

    it('an empty package lists nothing', async () => {
      const source = await subject().opener.open(await subject().put({}));
      opened.push(source);
      expect(source.entries()).toEqual([]);
      expect(source.has('metadata.json')).toBe(false);
    });
  });
}
