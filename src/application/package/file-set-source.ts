import { SourceNotFoundError } from '../../domain/errors.js';
import { sortPaths } from '../../domain/package/package-paths.js';
import { collectBytes } from '../shared/bytes.js';
import type { PackageEntry, PackageSource } from '../ports/package-source.js';

export interface FileSetEntry {
  size: number;
  stream(): AsyncIterable<Uint8Array>;
}

/** A package assembled from files that live in different places: a base package, an overlay, new bytes. */
export class FileSetSource implements PackageSource {
  readonly kind = 'memory';
  private readonly files: Map<string, FileSetEntry>;

  constructor(
    files: ReadonlyMap<string, FileSetEntry>,
    readonly location: string,
  ) {
    this.files = new Map(sortPaths(files.keys()).map((path) => [path, files.get(path)!]));
  }

  static bytes(bytes: Uint8Array): FileSetEntry {
    return {
      size: bytes.length,
      async *stream() {
        yield bytes;
      },
    };
  }

  entries(): readonly PackageEntry[] {
    return [...this.files].map(([path, file]) => ({ path, size: file.size }));
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  sizeOf(path: string): number | undefined {
    return this.files.get(path)?.size;
  }

  read(path: string): Promise<Uint8Array> {
    return collectBytes(this.stream(path));
  }

  stream(path: string): AsyncIterable<Uint8Array> {
    const file = this.files.get(path);
    if (!file) throw new SourceNotFoundError(`${this.location}: no file ${path}`);
    return file.stream();
  }

  async close(): Promise<void> {}
}
