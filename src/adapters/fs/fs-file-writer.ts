import { access, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { OutputExistsError, UnsafeEntryError, UsageError } from '../../domain/errors.js';
import { unsafePathReason } from '../../domain/package/package-paths.js';
import type { FileWriter } from '../../application/ports/file-writer.js';
import { writeNewFile, writeWholeFile } from './whole-file.js';
import { folderNotWritable, storageFailure } from '../shared/storage-failure.js';

export class FsFileWriter implements FileWriter {
  async write(path: string, data: AsyncIterable<Uint8Array>, options: { overwrite: boolean; mode?: number }): Promise<void> {
    const taken = () => new OutputExistsError(`${path} exists; use --force to overwrite it`);
    // Looked at first so a large stream is not written for nothing; the write itself decides.
    if (!options.overwrite && (await exists(path))) throw taken();
    const write = options.overwrite ? writeWholeFile(path, data, options.mode).then(() => true) : writeNewFile(path, data, options.mode);
    const written = await write.catch((error: NodeJS.ErrnoException) => {
      // A file where a folder of the path must be (`pkg init afile --force`): the user's to move, not a fault.
      if (error.code === 'ENOTDIR' || error.code === 'EEXIST') throw new UsageError(`cannot write ${path}: a file stands where a folder of that path must be`);
      const where = `cannot write ${path}`;
      // Node's own error would name the temporary file beside it, which the user never made.
      throw storageFailure(where, error) ?? folderNotWritable(where, 'its folder', error) ?? error;
    });
    if (!written) throw taken();
  }

  async update(directory: string, changes: { write: ReadonlyMap<string, Uint8Array>; remove: readonly string[] }): Promise<void> {
    for (const path of [...changes.write.keys(), ...changes.remove]) {
      const reason = unsafePathReason(path);
      if (reason) throw new UnsafeEntryError(path, reason);
    }
    // What each file held before it was written (undefined: it was not there), to put back if a later one fails.
    const written = new Map<string, Uint8Array | undefined>();
    for (const [path, bytes] of changes.write) {
      const file = join(directory, path);
      try {
        const before = await readFile(file).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined;
          throw error;
        });
        await writeWholeFile(file, bytes);
        written.set(file, before);
      } catch (error) {
        // Files that go together (a signature and the security.json that records it), some new and some old, would fail validation where they passed.
        await putBack(written);
        const where = `cannot write ${path} into ${directory}`;
        throw storageFailure(where, error) ?? folderNotWritable(where, 'the folder', error) ?? error;
      }
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

/** The files as they were: those that were not there removed first, which makes room to write the others back. Best effort: the write's own error is the one to report. */
async function putBack(written: ReadonlyMap<string, Uint8Array | undefined>): Promise<void> {
  for (const [file, before] of written) if (before === undefined) await rm(file, { force: true }).catch(() => undefined);
  for (const [file, before] of written) if (before !== undefined) await writeWholeFile(file, before).catch(() => undefined);
}
