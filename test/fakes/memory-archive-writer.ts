import { createHash } from 'node:crypto';
import { OutputExistsError } from '../../src/domain/errors.js';
import type { ArchiveEntryOptions, ArchiveSink, ArchiveWriter } from '../../src/application/ports/archive-writer.js';

export interface MemoryArchiveEntry {
  path: string;
  bytes: Uint8Array;
  store: boolean;
}

export interface MemoryArchive {
  entries: MemoryArchiveEntry[];
  /** The archive's own bytes: what `commit` measured and hashed. */
  bytes: Uint8Array;
}

const MAGIC = 'MEMORY-ARCHIVE 1\n';

/**
 * Keeps archives in memory, keyed by `<directory>/<fileName>`: for use-case tests. An
 * archive is real bytes (a header line, then per entry a JSON line and its bytes), so
 * the size and SHA-256 `commit` reports are those of the bytes kept, as the port
 * promises, and the same entries give the same bytes. Kept honest by
 * test/contracts/archive-writer.contract.ts.
 */
export class MemoryArchiveWriter implements ArchiveWriter {
  readonly archives = new Map<string, MemoryArchive>();

  async create(directory: string, fileName: string, options: { overwrite: boolean }): Promise<ArchiveSink> {
    const path = `${directory.replace(/\/+$/, '')}/${fileName}`;
    if (!options.overwrite && this.archives.has(path)) throw new OutputExistsError(`${path} exists`);
    const entries: MemoryArchiveEntry[] = [];
    let finished = false;
    const archives = this.archives;
    return {
      async add(entryPath: string, data: Uint8Array | AsyncIterable<Uint8Array>, entryOptions: ArchiveEntryOptions) {
        if (finished) throw new Error(`${path}: the archive is already committed or aborted`);
        const chunks: Uint8Array[] = [];
        if (data instanceof Uint8Array) chunks.push(data);
        else for await (const chunk of data) chunks.push(chunk);
        // A copy: the caller may reuse its buffers once the entry is consumed.
        entries.push({ path: entryPath, bytes: Uint8Array.from(Buffer.concat(chunks)), store: entryOptions.store });
      },
      async commit() {
        if (finished) throw new Error(`${path}: the archive is already committed or aborted`);
        finished = true;
        const bytes = encodeMemoryArchive(entries);
        archives.set(path, { entries, bytes });
        return { path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
      },
      async abort() {
        finished = true;
      },
    };
  }

  /** The bytes of a committed archive, undefined when there is none at the path. */
  bytes(path: string): Uint8Array | undefined {
    return this.archives.get(path)?.bytes;
  }
}

export function encodeMemoryArchive(entries: readonly MemoryArchiveEntry[]): Uint8Array {
  const parts: Buffer[] = [Buffer.from(MAGIC)];
  for (const { path, bytes, store } of entries) {
    parts.push(Buffer.from(`${JSON.stringify({ path, size: bytes.length, store })}\n`), Buffer.from(bytes));
  }
  return Uint8Array.from(Buffer.concat(parts));
}

/** The entries of an archive's bytes, as `encodeMemoryArchive` wrote them. */
export function decodeMemoryArchive(bytes: Uint8Array): MemoryArchiveEntry[] {
  const buffer = Buffer.from(bytes);
  if (!buffer.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC))) throw new Error('not a memory archive');
  const entries: MemoryArchiveEntry[] = [];
  for (let at = MAGIC.length; at < buffer.length; ) {
    const end = buffer.indexOf(0x0a, at);
    const header = JSON.parse(buffer.subarray(at, end).toString('utf8')) as { path: string; size: number; store: boolean };
    entries.push({ path: header.path, store: header.store, bytes: Uint8Array.from(buffer.subarray(end + 1, end + 1 + header.size)) });
    at = end + 1 + header.size;
  }
  return entries;
}
