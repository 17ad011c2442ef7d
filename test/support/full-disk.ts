import { afterAll, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDirectory } from './paths.js';

/**
 * A folder on a file system of `kib` KiB (a tmpfs of its own), for what a full disk does to
 * a write: the error node gives is the real ENOSPC. Mounting takes root: elsewhere there is
 * none (undefined), and the tests that need one say they were skipped.
 */
function smallDisk(kib: number): { path: string; remove: () => void } | undefined {
  const folder = temporaryDirectory('cap-small-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k,mode=0755`, 'tmpfs', folder.path], { stdio: 'pipe' });
  } catch {
    folder.remove();
    return undefined;
  }
  return {
    path: folder.path,
    remove: () => {
      execFileSync('umount', [folder.path], { stdio: 'pipe' });
      folder.remove();
    },
  };
}

/** A small disk for one test file, removed after its tests, and `it` for the tests that need one: skipped where mounting it takes root the tests lack. */
export function smallDiskForTests(kib: number): { disk: { path: string } | undefined; onSmallDisk: typeof it | typeof it.skip } {
  const disk = smallDisk(kib);
  afterAll(() => disk?.remove());
  return { disk, onSmallDisk: disk ? it : it.skip };
}

/** Takes all of the disk at `path` but `pagesLeft` blocks with a filler file; the function returned gives the room back. */
export function fillDisk(path: string, pagesLeft = 0): () => void {
  const { bavail, bsize } = statfsSync(path);
  const filler = join(path, 'filler');
  writeFileSync(filler, Buffer.alloc((bavail - pagesLeft) * bsize));
  return () => rmSync(filler);
}
