import { open, type FileHandle } from 'node:fs/promises';
import { UsageError } from '../../domain/errors.js';

/**
 * What a file named on the command line may weigh: keys, certificates, passphrase and
 * mounts files are kilobytes. Read whole without a bound, `--key /dev/zero` (or a package
 * given as a key by mistake) went on until memory ran out.
 */
export const MAX_USER_FILE_BYTES = 16 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

/** A file the user named on the command line (a key, a certificate, a mounts file); one that cannot be read is a usage error, not a stack trace. */
export async function readUserFile(path: string, what: string, limit = MAX_USER_FILE_BYTES): Promise<Buffer> {
  let file: FileHandle | undefined;
  try {
    file = await open(path, 'r');
    // Read in turn rather than by position, so a pipe (`--key <(pass show key)`) reads too.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead, buffer } = await file.read(Buffer.alloc(CHUNK_BYTES), 0, CHUNK_BYTES, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      total += bytesRead;
      if (total > limit) throw new UsageError(`${what} ${path} is over ${limit} bytes, more than any such file holds`);
      chunks.push(buffer.subarray(0, bytesRead));
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  } finally {
    await file?.close();
  }
}
