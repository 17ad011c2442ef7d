import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { ArchiveWriter } from '../../src/application/ports/archive-writer.js';
import { OutputExistsError } from '../../src/domain/errors.js';
import { bytes, chunks, eachSubject, text, type Subject } from './subject.js';

export interface ArchiveWriterSubject {
  writer: ArchiveWriter;
  /** A directory archives may be written to. */
  directory: string;
  /** The bytes at a path once an archive is committed; undefined when nothing is there. */
  bytesAt(path: string): Promise<Uint8Array | undefined>;
  /** The entries of a committed archive, read back: path to bytes. */
  entriesOf(path: string): Promise<Record<string, string>>;
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The promises of the ArchiveWriter port (src/application/ports/archive-writer.ts). */
export function describeArchiveWriterContract(name: string, makeSubject: () => Promise<Subject<ArchiveWriterSubject>> | Subject<ArchiveWriterSubject>): void {
  describe(`${name} keeps the ArchiveWriter contract`, () => {
    const subject = eachSubject(makeSubject);

    /** Writes the same three entries, given whole and streamed. */
    async function writeSample(fileName: string, options = { overwrite: false }, last = 'x'.repeat(5000)) {
      const sink = await subject().writer.create(subject().directory, fileName, options);
      await sink.add('metadata.json', bytes('{"name":"demo"}'), { store: false });
      await sink.add('content/index.html', chunks('<!doctype html>', '<p>hi</p>'), { store: false });
      await sink.add('content/image.png', bytes(last), { store: true });
      return sink;
    }

    it('reports the path, size and SHA-256 of the bytes it wrote', async () => {
      const result = await (await writeSample('demo-1.0.0.cap')).commit();
      expect(result.path.endsWith('/demo-1.0.0.cap')).toBe(true);
      const written = await subject().bytesAt(result.path);
      expect(written).toBeDefined();
      expect(result.size).toBe(written!.length);
      expect(result.sha256).toBe(sha256(written!));
    });

    it('holds every entry with its bytes, given whole or streamed', async () => {
      const { path } = await (await writeSample('demo-1.0.0.cap')).commit();
      expect(await subject().entriesOf(path)).toEqual({
        'content/image.png': 'x'.repeat(5000),
        'content/index.html': '<!doctype html><p>hi</p>',
        'metadata.json': '{"name":"demo"}',
      });
    });

    it('writes nothing at the destination before commit, and nothing at all when aborted', async () => {
      const sink = await writeSample('demo-1.0.0.cap');
      const destination = `${subject().directory}/demo-1.0.0.cap`;
      expect(await subject().bytesAt(destination)).toBeUndefined();
      await sink.abort();
      expect(await subject().bytesAt(destination)).toBeUndefined();
      // Nothing was left to be in the way, either.
      await (await writeSample('demo-1.0.0.cap')).commit();
    });

    it('is reproducible: the same entries give byte-identical archives', async () => {
      const first = await (await writeSample('a.cap')).commit();
      const second = await (await writeSample('b.cap')).commit();
      expect(second.sha256).toBe(first.sha256);
      expect(second.size).toBe(first.size);
      expect(Buffer.from((await subject().bytesAt(second.path))!).equals(Buffer.from((await subject().bytesAt(first.path))!))).toBe(true);
      const other = await (await writeSample('c.cap', undefined, 'x'.repeat(4999) + 'y')).commit();
      expect(other.sha256).not.toBe(first.sha256);
    });

    it('refuses an existing file with OutputExistsError unless told to overwrite, then replaces it whole', async () => {
      const first = await (await writeSample('demo.cap')).commit();
      await expect(subject().writer.create(subject().directory, 'demo.cap', { overwrite: false })).rejects.toThrow(OutputExistsError);
      expect(sha256((await subject().bytesAt(first.path))!)).toBe(first.sha256);
      const sink = await subject().writer.create(subject().directory, 'demo.cap', { overwrite: true });
      await sink.add('only.txt', bytes('only'), { store: false });
      const second = await sink.commit();
      expect(second.path).toBe(first.path);
      expect(sha256((await subject().bytesAt(second.path))!)).toBe(second.sha256);
      expect(await subject().entriesOf(second.path)).toEqual({ 'only.txt': 'only' });
    });

    it('commits an archive with no entries', async () => {
      const sink = await subject().writer.create(subject().directory, 'empty.cap', { overwrite: false });
      const result = await sink.commit();
      expect(result.size).toBe((await subject().bytesAt(result.path))!.length);
      expect(await subject().entriesOf(result.path)).toEqual({});
    });
  });
}

/** Entries as path to text, in path order: archives need not list them as they were added. */
export function entryTexts(entries: Iterable<readonly [string, Uint8Array]>): Record<string, string> {
  return Object.fromEntries([...entries].map(([path, data]) => [path, text(data)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
