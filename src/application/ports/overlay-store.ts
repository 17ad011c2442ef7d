/** A file that only grows: one dataset's operation log. */
export interface AppendLog {
  /** Appends the bytes and makes them durable before resolving; a failed append leaves the log as it was. */
  append(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

export interface OverlayFile {
  /** Path below the overlay's content root: `docs/a.html`. */
  path: string;
  size: number;
}

/**
 * One package's writable overlay in the reactor's workdir: written content files,
 * the overlay's tombstones and one operation log per dataset. The package itself is
 * never written.
 */
export interface PackageOverlay {
  /** Where it lives, for messages. */
  readonly location: string;
  contentFiles(): Promise<OverlayFile[]>;
  readContent(path: string): Promise<Uint8Array>;
  streamContent(path: string): AsyncIterable<Uint8Array>;
  /** Replaces the file whole: a reader sees the old bytes or the new ones, never a mix. */
  writeContent(path: string, bytes: Uint8Array): Promise<void>;
  removeContent(path: string): Promise<void>;
  tombstones(): Promise<string[]>;
  writeTombstones(paths: readonly string[]): Promise<void>;
  /** The log's bytes, empty when there is none yet. */
  readLog(dataset: string): Promise<Uint8Array>;
  /** Opens the log for appends, first cutting it to `length` bytes (dropping a torn last line). */
  openLog(dataset: string, length: number): Promise<AppendLog>;
}

export interface OverlayStore {
  /** The overlay of a package by name under `<workdir>/overlays/`, created on first write. */
  open(workdir: string, packageName: string): PackageOverlay;
}
