import { createHash } from 'node:crypto';
import { OutputExistsError } from '../../src/domain/errors.js';
import type { ArchiveEntryOptions, ArchiveSink, ArchiveWriter } from '../../src/application/ports/archive-writer.js';

export interface MemoryArchive {
  entries: Array<{ path: string; bytes: Uint8Array; store: boolean }>;
}

/** Keeps archives in memory, keyed by `<directory>/<fileName>`: for use-case tests. */
export class MemoryArchiveWriter implements ArchiveWriter {
  readonly archives = new Map<string, MemoryArchive>();

  async create(directory: string, fileName: string, options: { overwrite: boolean }): Promise<ArchiveSink> {
    const path = `${directory}/${fileName}`;
    if (!options.overwrite && this.archives.has(path)) throw new OutputExistsError(`${path} exists`);
    const archive: MemoryArchive = { entries: [] };
    const archives = this.archives;
    return {
      async add(entryPath: string, data: Uint8Array | AsyncIterable<Uint8Array>, entryOptions: ArchiveEntryOptions) {
        const chunks: Uint8Array[] = [];
        if (data instanceof Uint8Array) chunks.push(data);
        else for await (const chunk of data) chunks.push(chunk);
        archive.entries.push({ path: entryPath, bytes: Buffer.concat(chunks), store: entryOptions.store });
      },
      async commit() {
        archives.set(path, archive);
        const size = archive.entries.reduce((sum, entry) => sum + entry.bytes.length, 0);
        const hash = createHash('sha256');
        for (const entry of archive.entries) hash.update(entry.path).update(entry.bytes);
        return { path, size, sha256: hash.digest('hex') };
      },
      async abort() {},
    };
  }
}
