import type { DeflatedEntry, PackageEntry, PackageSource } from '../ports/package-source.js';

/**
 * A source that answers as the one it wraps: what a wrapper adds (closing more, checking
 * reads) it overrides. An archive's bytes and deflated entries stay reachable through it,
 * so a wrapped `.cap` still answers gzip straight from its entries.
 */
export class WrappedSource implements PackageSource {
  readonly archiveBytes?: () => AsyncIterable<Uint8Array>;
  readonly deflated?: (path: string) => DeflatedEntry | undefined;

  constructor(protected readonly inner: PackageSource) {
    if (inner.archiveBytes) this.archiveBytes = () => inner.archiveBytes!();
    if (inner.deflated) this.deflated = (path) => inner.deflated!(path);
  }

  get location(): string {
    return this.inner.location;
  }

  get path(): string | undefined {
    return this.inner.path;
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

  sizeOf(path: string): number | undefined {
    return this.inner.sizeOf(path);
  }

  read(path: string): Promise<Uint8Array> {
    return this.inner.read(path);
  }

  stream(path: string): AsyncIterable<Uint8Array> {
    return this.inner.stream(path);
  }

  range(path: string, start: number, end: number): AsyncIterable<Uint8Array> | undefined {
    return this.inner.range?.(path, start, end);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
