import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { LocalFiles } from '../../application/ports/local-files.js';

export class FsLocalFiles implements LocalFiles {
  async read(path: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async version(path: string): Promise<string | undefined> {
    try {
      const info = await stat(path);
      return `${info.mtimeMs}:${info.size}:${info.ino}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  resolve(from: string, path: string): string {
    return resolve(dirname(from), path);
  }
}
