import { posix } from 'node:path';
import type { LocalFiles } from '../../src/application/ports/local-files.js';

/**
 * The operator's files in memory, by absolute POSIX path; each write gives the file a new
 * version. Kept honest by test/contracts/local-files.contract.ts.
 */
export class MemoryLocalFiles implements LocalFiles {
  readonly files = new Map<string, { bytes: Uint8Array; version: number }>();
  private writes = 0;

  write(path: string, content: string | Uint8Array): this {
    this.files.set(path, { bytes: typeof content === 'string' ? new TextEncoder().encode(content) : content.slice(), version: ++this.writes });
    return this;
  }

  remove(path: string): this {
    this.files.delete(path);
    return this;
  }

  async read(path: string): Promise<Uint8Array | undefined> {
    return this.files.get(path)?.bytes.slice();
  }

  async version(path: string): Promise<string | undefined> {
    return this.files.get(path)?.version.toString();
  }

  resolve(from: string, path: string): string {
    return posix.resolve(posix.dirname(from), path);
  }
}
