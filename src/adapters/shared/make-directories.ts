import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p`: resolves to the first directory it made, or undefined when all were there,
 * as node's `mkdir(path, { recursive: true })` does. Node's own never returns below a
 * directory that refuses children with ENOENT (any path under /proc): it retries the
 * parent, finds it there, and tries the child again, forever. Here each level is made
 * once, and its error is the caller's.
 */
export async function makeDirectories(path: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      const found = await stat(at);
      if (!found.isDirectory()) throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${at}'`), { code: 'EEXIST', syscall: 'mkdir', path: at });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw error;
      missing.push(at);
    }
  }
  let first: string | undefined;
  for (const directory of missing.reverse()) {
    try {
      await mkdir(directory);
      first ??= directory;
    } catch (error) {
      // Another process made it meanwhile: what mkdir -p wanted.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return first;
}
