export interface PackageEntry {
  /** Package-relative POSIX path. */
  path: string;
  size: number;
}

/** A read-only view of one package's files: a directory, a `.cap` read in place, or memory. */
export interface PackageSource {
  /** Where the package comes from, for messages. */
  readonly location: string;
  readonly kind: 'directory' | 'archive' | 'memory';
  /** Files only, sorted by path. */
  entries(): readonly PackageEntry[];
  has(path: string): boolean;
  read(path: string): Promise<Uint8Array>;
  stream(path: string): AsyncIterable<Uint8Array>;
  /** The archive file's own bytes, for sources that are one (its SHA-256 is the content hash). */
  archiveBytes?(): AsyncIterable<Uint8Array>;
  /**
   * For sources whose files may change while served (a directory being edited): the
   * file's size now and a token that changes with its bytes; undefined once it is gone.
   */
  current?(path: string): Promise<{ size: number; version: string } | undefined>;
  close(): Promise<void>;
}

/** Opens a package directory or `.cap` file by its location. */
export interface PackageOpener {
  open(location: string): Promise<PackageSource>;
}
