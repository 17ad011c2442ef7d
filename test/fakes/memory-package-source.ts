import { SourceNotFoundError } from '../../src/domain/errors.js';
import { sortPaths } from '../../src/domain/package/package-paths.js';
import type { PackageEntry, PackageSource } from '../../src/application/ports/package-source.js';

/** A package held in memory, for tests. Kept honest by test/contracts/package-source.contract.ts. */
export class MemoryPackageSource implements PackageSource {
  readonly kind = 'memory';
  private readonly files: Map<string, Uint8Array>;

  constructor(
    files: Record<string, string | Uint8Array>,
    readonly location = 'memory',
  ) {
    this.files = new Map(sortPaths(Object.keys(files)).map((path) => [path, toBytes(files[path]!)]));
  }

  entries(): readonly PackageEntry[] {
    return [...this.files].map(([path, bytes]) => ({ path, size: bytes.length }));
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  sizeOf(path: string): number | undefined {
    return this.files.get(path)?.length;
  }

  async read(path: string): Promise<Uint8Array> {
    const bytes = this.files.get(path);
    if (!bytes) throw new SourceNotFoundError(`${this.location}: no file ${path}`);
    return bytes;
  }

  async *stream(path: string): AsyncIterable<Uint8Array> {
    yield await this.read(path);
  }

  async close(): Promise<void> {}
}

function toBytes(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? new TextEncoder().encode(value) : value;
}
