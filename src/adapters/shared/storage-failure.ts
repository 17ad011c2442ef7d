import { WriteFailedError } from '../../domain/errors.js';

/** The storage's own failures, which no other path or option mends: the operator's to free or fix. */
const STORAGE_FAILURES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device (ENOSPC)',
  EDQUOT: 'the disk quota is used up (EDQUOT)',
  EFBIG: 'the file is larger than the file system or the process limit allows (EFBIG)',
  EIO: 'the device failed (EIO)',
  EROFS: 'the file system is read-only (EROFS)',
};

/**
 * A full, failing or read-only storage's error as WriteFailedError, `where` saying what
 * was being written; undefined for any other error. Node's own names neither (a failed
 * write of a stream has no path): the CLI could only call it an internal error.
 */
export function storageFailure(where: string, error: unknown): WriteFailedError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const failure = code === undefined ? undefined : STORAGE_FAILURES[code];
  return failure === undefined ? undefined : new WriteFailedError(`${where}: ${failure}`, { cause: error });
}

/** A folder the tool writes into that its user may not write (its owner or mode): a WriteFailedError saying so plainly, `what` naming the folder; undefined for any other error. */
export function folderNotWritable(where: string, what: string, error: unknown): WriteFailedError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EACCES' && code !== 'EPERM') return undefined;
  return new WriteFailedError(`${where}: ${what} is not writable by this user (${code})`, { cause: error });
}
