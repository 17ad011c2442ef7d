import { randomBytes } from 'node:crypto';
import { link, lstat, open, rename, rm, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PARTIAL_SUFFIX } from '../../domain/package/package-paths.js';
import { makeDirectories } from '../shared/make-directories.js';
import { unfinished } from '../shared/unfinished-paths.js';
import { writeAll } from '../shared/write-all.js';

/**
 * Writes a file beside its target, syncs it, and renames it into place: a reader sees
 * the old file or the new one, never a mix, and a failed write (a stream that throws,
 * a full disk) leaves nothing behind. The mode is set at creation, so a private file is
 * never readable by others, not even briefly. It resolves once the new name is on disk
 * too: the folders that changed are synced, without which a power cut may bring back
 * the old file (or none) after the write was acknowledged.
 */
export async function writeWholeFile(path: string, data: Uint8Array | AsyncIterable<Uint8Array>, mode = 0o644, check?: (written: string) => Promise<void>): Promise<void> {
  await writeThenPlace(path, data, mode, check, async (temporary) => {
    await rename(temporary, path).catch(async (error: unknown) => {
      // An empty folder where the file goes (its files all deleted) gives way; one holding anything does not.
      if ((error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
      await rmdir(path);
      await rename(temporary, path);
    });
    return true;
  });
}

/**
 * Writes a file as writeWholeFile does, but only where nothing is yet, decided by the file
 * system in one step (a hard link fails on a taken name): of several processes making one
 * new file at once, one alone does. False, and nothing written, when the name was taken.
 */
export async function writeNewFile(path: string, data: Uint8Array | AsyncIterable<Uint8Array>, mode = 0o644): Promise<boolean> {
  return writeThenPlace(path, data, mode, undefined, (temporary) => placeWhereNothingIs(temporary, path).finally(() => rm(temporary, { force: true })));
}

/**
 * The bytes in a synced file beside `path`, given their name by `place` (false: it was
 * not), and the folders that changed synced then. The file beside is removed on a
 * failure, and on a signal meanwhile (unfinished-paths).
 */
async function writeThenPlace(path: string, data: Uint8Array | AsyncIterable<Uint8Array>, mode: number, check: ((written: string) => Promise<void>) | undefined, place: (temporary: string) => Promise<boolean>): Promise<boolean> {
  const created = await makeDirectories(dirname(path));
  const temporary = `${path}.${randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`;
  // Watched before it exists: a signal between the two would otherwise leave it behind.
  unfinished.add(temporary);
  let placed: boolean;
  try {
    await writeSynced(temporary, data, mode, check);
    placed = await place(temporary).catch(async (error: unknown) => {
      // A folder holding files where the file should go, say: the bytes written so far must not stay behind.
      await rm(temporary, { force: true });
      throw error;
    });
  } finally {
    unfinished.delete(temporary);
  }
  if (placed) await syncFolders(dirname(path), created);
  return placed;
}

/** Writes and syncs the bytes at `temporary`, then lets `check` judge them there; removes the file when either fails. */
async function writeSynced(temporary: string, data: Uint8Array | AsyncIterable<Uint8Array>, mode: number, check: ((written: string) => Promise<void>) | undefined): Promise<void> {
  const handle = await open(temporary, 'wx', mode);
  try {
    if (data instanceof Uint8Array) await handle.writeFile(data);
    else for await (const chunk of data) await writeAll(handle, chunk);
    await handle.datasync();
    await handle.close();
    // `check` judges the bytes where they lie before they replace anything at `path`.
    await check?.(temporary);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Gives `temporary`'s file the name `path` too, unless that name is taken: false then. */
async function placeWhereNothingIs(temporary: string, path: string): Promise<boolean> {
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST') return false;
    // A file system without hard links: looked at, then renamed, which a writer at the same instant may race.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    if (await lstat(path).then(() => true, () => false)) return false;
    await rename(temporary, path);
    return true;
  }
}

/** Syncs `folder`, and when `created` (the first folder mkdir made) is given, each new folder up to it and the one that holds it. */
export async function syncFolders(folder: string, created: string | undefined): Promise<void> {
  const changed = [folder];
  if (created !== undefined) for (let at = folder; at.length >= created.length; at = dirname(at)) changed.push(dirname(at));
  for (const each of changed) {
    const handle = await open(each, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/**
 * Removes a file, then each folder above it up to `root` that it leaves empty (a file may
 * take a folder's name once nothing is in it), and syncs the folder that changed last.
 */
export async function removeFile(path: string, root: string): Promise<void> {
  await rm(path);
  let folder = dirname(path);
  for (; folder.length > root.length && folder.startsWith(`${root}/`); folder = dirname(folder)) {
    try {
      await rmdir(folder);
    } catch {
      // Not empty (or gone): the folders above it are not empty either.
      break;
    }
  }
  await syncFolders(folder, undefined);
}
