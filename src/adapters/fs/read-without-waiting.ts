import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * A file of the workdir read whole, opened without waiting: a named pipe put in its place by
 * hand would hold the open (and the reactor's start or writes, and a thread of the pool)
 * until someone wrote to it. Such a file fails as node's errors do, with a code of its own;
 * a folder fails its read (EISDIR), as readFile's would.
 */
export async function readWithoutWaiting(path: string): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile() && !info.isDirectory()) throw Object.assign(new Error('ENOTREG: not a file (a named pipe or device is in its place)'), { code: 'ENOTREG' });
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
