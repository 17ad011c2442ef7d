import type { DeflatedEntry, PackageEntry, PackageSource } from '../ports/package-source.js';

/** A source over a file that exists only for it (a decrypted package): closing it removes the file. */
export class OwnedSource implements PackageSource {
  readonly archiveBytes?: () => AsyncIterable<Uint8Array>;
  /** An archive's deflated entries stay answerable as gzip (and brotli in the background) through the wrapper. */
  readonly deflated?: (path: string) => DeflatedEntry | undefined;

  constructor(
    private readonly inner: PackageSource,
    private readonly release: () => Promise<void>,
  ) {
    if (inner.archiveBytes) this.archiveBytes = () => inner.archiveBytes!();
    if (inner.deflated) this.deflated = (path) => inner.deflated!(path);
  }

  get location(): string {
    return this.inner.location;
  }

  get kind(): PackageSource['kind'] {
    return this.inner.kind;
  }

  entries(): readonly PackageEntry[] {
    return this.inner.entries();
  }

  has(path: string): boolean {
    return this.inner.has(path);
  }

  read(path: string): Promise<Uint8Array> {
    return this.inner.read(path);
  }

  stream(path: string): AsyncIterable<Uint8Array> {
    return this.inner.stream(path);
  }

  async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      await this.release();
    }
  }
}
