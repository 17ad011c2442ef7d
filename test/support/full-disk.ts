import { execFileSync } from 'node:child_process';
import { temporaryDirectory } from './paths.js';

/**
 * A folder on a file system of `kib` KiB (a tmpfs of its own), for what a full disk does to
 * a write: the error node gives is the real ENOSPC. Mounting takes root: elsewhere there is
 * none (undefined), and the tests that need one say they were skipped.
 */
export function smallDisk(kib: number): { path: string; remove: () => void } | undefined {
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
