import type { FileHandle } from 'node:fs/promises';

/** Fills `buffer` from `position` on; false when the file ends first (a truncated archive). */
export async function readFully(file: FileHandle, buffer: Buffer, position: number): Promise<boolean> {
  for (let done = 0; done < buffer.length; ) {
    const { bytesRead } = await file.read(buffer, done, buffer.length - done, position + done);
    if (bytesRead === 0) return false;
    done += bytesRead;
  }
  return true;
}
