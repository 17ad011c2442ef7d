import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';

/** What is at a path, or undefined when nothing is (missing, or below a file); other failures are the caller's. */
export async function statOf(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
