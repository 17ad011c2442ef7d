import { randomBytes } from 'node:crypto';
import { access, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OutputExistsError, UnsafeEntryError } from '../../domain/errors.js';
import { unsafePathReason } from '../../domain/package/package-paths.js';
import type { FileWriter } from '../../application/ports/file-writer.js';

export class FsFileWriter implements FileWriter {
  async write(path: string, data: AsyncIterable<Uint8Array>, options: { overwrite: boolean; mode?: number }): Promise<void> {
    if (!options.overwrite && (await exists(path))) throw new OutputExistsError(`${path} exists; use --force to overwrite it`);
    await mkdir(dirname(path), { recursive: true });
    const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
    // The mode is set at creation: a decrypted package is never readable by others, not even briefly.
    const handle = await open(temporary, 'wx', options.mode ?? 0o644);
    try {
      for await (const chunk of data) await handle.write(chunk);
      await handle.close();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
    await rename(temporary, path);
  }

  async update(directory: string, changes: { write: ReadonlyMap<string, Uint8Array>; remove: readonly string[] }): Promise<void> {
    for (const path of [...changes.write.keys(), ...changes.remove]) {
      const reason = unsafePathReason(path);
      if (reason) throw new UnsafeEntryError(path, reason);
    }
    for (const [path, bytes] of changes.write) await this.write(join(directory, path), once(bytes), { overwrite: true });
    for (const path of changes.remove) await rm(join(directory, path), { force: true });
  }

  async remove(path: string): Promise<void> {
    await rm(path, { recursive: true, force: true });
  }
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
