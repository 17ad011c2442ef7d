import { posix } from 'node:path';
import type { DirectoryDraft, DirectoryWriter } from '../../src/application/ports/directory-writer.js';
import { OutputExistsError, UnsafeEntryError } from '../../src/domain/errors.js';

/**
 * Directories filled in memory: a draft's files appear under its destination only when it
 * is committed, and replace what was there. Counts drafts and discards for assertions.
 * Kept honest by test/contracts/directory-writer.contract.ts.
 */
export class MemoryDirectoryWriter implements DirectoryWriter {
  /** Destination -> its files, path to bytes. */
  readonly committed = new Map<string, Map<string, Uint8Array>>();
  drafts = 0;
  discarded = 0;

  async create(destination: string, options: { replace: boolean }): Promise<DirectoryDraft> {
    const target = posix.resolve(destination);
    if (!options.replace && (this.committed.get(target)?.size ?? 0) > 0) throw new OutputExistsError(`${target} exists and is not an empty directory`);
    this.drafts++;
    const files = new Map<string, Uint8Array>();
    let open = true;
    return {
      write: async (path, data) => {
        if (!open) throw new Error(`the draft of ${target} is already committed or discarded`);
        const file = posix.resolve(target, path);
        if (!file.startsWith(`${target}/`)) throw new UnsafeEntryError(path, 'escapes the destination');
        if (files.has(file.slice(target.length + 1))) throw new UnsafeEntryError(path, 'written already');
        const chunks: Uint8Array[] = [];
        for await (const chunk of data) chunks.push(chunk);
        files.set(file.slice(target.length + 1), Uint8Array.from(Buffer.concat(chunks)));
      },
      commit: async () => {
        open = false;
        this.committed.set(target, files);
        return target;
      },
      discard: async () => {
        open = false;
        this.discarded++;
      },
    };
  }
}
