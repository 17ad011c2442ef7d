import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** What a path of the workdir holds when a named pipe, socket or device was put in its place by hand (no comma: overlayError cuts node's messages at the first). */
export const NOT_A_FILE = 'not a file (a named pipe or another special file is in its place)';

/**
 * A file of the workdir opened without waiting: a named pipe put in its place by hand would
 * hold the open (and the reactor's start, or a request, and a thread of the pool) until
 * someone wrote to it. Anything but a file fails, as node's errors do, with a code of its own
 * (ENOTREG); a folder too, unless `folders` lets it through to fail its read (EISDIR), as
 * readFile's would.
 */
export async function openWithoutWaiting(path: string, options: { folders?: boolean } = {}): Promise<{ handle: FileHandle; info: Stats }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile() && !(options.folders && info.isDirectory())) throw Object.assign(new Error(`ENOTREG: ${NOT_A_FILE}`), { code: 'ENOTREG' });
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A file of the workdir read whole, opened without waiting (see openWithoutWaiting). */
export async function readWithoutWaiting(path: string): Promise<Buffer> {
  const { handle } = await openWithoutWaiting(path, { folders: true });
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
