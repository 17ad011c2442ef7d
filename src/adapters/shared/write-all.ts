import type { FileHandle } from 'node:fs/promises';

/**
 * Writes every byte of `bytes`, at `position` or at the file's own position. A write may
 * take fewer bytes than it is given and still succeed: a disk that fills up takes what
 * fits, and only the next write fails (ENOSPC). One write taken for all of them keeps a
 * truncated file and reports success.
 */
export async function writeAll(handle: FileHandle, bytes: Uint8Array, position?: number): Promise<void> {
  for (let written = 0; written < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, position === undefined ? null : position + written);
    // Never met on a regular file; a loop that waited on it would never end.
    if (bytesWritten === 0) throw Object.assign(new Error('the file system took none of the bytes written'), { code: 'EIO' });
    written += bytesWritten;
  }
}
