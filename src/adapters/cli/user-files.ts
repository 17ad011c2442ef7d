import { readFile } from 'node:fs/promises';
import { UsageError } from '../../domain/errors.js';

/** A file the user named on the command line (a key, a certificate, a mounts file); one that cannot be read is a usage error, not a stack trace. */
export async function readUserFile(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new UsageError(`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}
