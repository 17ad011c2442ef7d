import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PARTIAL_SUFFIX } from '../../domain/package/package-paths.js';

/**
 * Writes a file beside its target, syncs it, and renames it into place: a reader sees
 * the old file or the new one, never a mix, and a failed write (a stream that throws,
 * a full disk) leaves nothing behind. The mode is set at creation, so a private file is
 * never readable by others, not even briefly.
 */
export async function writeWholeFile(path: string, data: Uint8Array | AsyncIterable<Uint8Array>, mode = 0o644): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`;
  const handle = await open(temporary, 'wx', mode);
  try {
    if (data instanceof Uint8Array) await handle.writeFile(data);
    else for await (const chunk of data) await handle.write(chunk);
    await handle.datasync();
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    // A directory where the file should go, say: the bytes written so far must not stay behind.
    await rm(temporary, { force: true });
    throw error;
  }
}
