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
  /**
   * Opens the log for appends. Bytes past `length` (what was read at load) may only be a
   * torn last line left by a crash, and are cut; complete lines there are never cut:
   * OverlayError instead.
   */
  openLog(dataset: string, length: number): Promise<AppendLog>;
}

/** Which mount an overlay belongs to: one mount path and the package mounted there. */
export interface OverlayMount {
  path: string;
  packageName: string;
}

export interface OverlayStore {
  /**
   * The overlay of one mount of a package in the workdir, created on first write. A
   * workdir of an older layout (one overlay per package name) is adopted by the first
   * mount of that package to open it, never by two.
   */
  open(workdir: string, mount: OverlayMount): Promise<PackageOverlay>;
}
