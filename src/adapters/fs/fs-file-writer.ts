import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { OutputExistsError, UnsafeEntryError, UsageError } from '../../domain/errors.js';
import { unsafePathReason } from '../../domain/package/package-paths.js';
import type { FileWriter } from '../../application/ports/file-writer.js';
import { writeNewFile, writeWholeFile } from './whole-file.js';
import { storageFailure } from '../shared/storage-failure.js';

export class FsFileWriter implements FileWriter {
  async write(path: string, data: AsyncIterable<Uint8Array>, options: { overwrite: boolean; mode?: number }): Promise<void> {
    const taken = () => new OutputExistsError(`${path} exists; use --force to overwrite it`);
    // Looked at first so a large stream is not written for nothing; the write itself decides.
    if (!options.overwrite && (await exists(path))) throw taken();
    const write = options.overwrite ? writeWholeFile(path, data, options.mode).then(() => true) : writeNewFile(path, data, options.mode);
    const written = await write.catch((error: NodeJS.ErrnoException) => {
      // A file where a folder of the path must be (`pkg init afile --force`): the user's to move, not a fault.
      if (error.code === 'ENOTDIR' || error.code === 'EEXIST') throw new UsageError(`cannot write ${path}: a file stands where a folder of that path must be`);
      throw storageFailure(`cannot write ${path}`, error) ?? error;
    });
    if (!written) throw taken();
  }

  async update(directory: string, changes: { write: ReadonlyMap<string, Uint8Array>; remove: readonly string[] }): Promise<void> {
    for (const path of [...changes.write.keys(), ...changes.remove]) {
      const reason = unsafePathReason(path);
      if (reason) throw new UnsafeEntryError(path, reason);
    }
    for (const [path, bytes] of changes.write) {
      await writeWholeFile(join(directory, path), bytes).catch((error: unknown) => {
        throw storageFailure(`cannot write ${path} into ${directory}`, error) ?? error;
      });
    }
    for (const path of changes.remove) await rm(join(directory, path), { force: true });
  }

  async remove(path: string): Promise<void> {
    await rm(path, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
