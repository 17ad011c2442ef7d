export interface ArchiveEntryOptions {
  /** Store without deflating: for bytes that are already compressed. */
  store: boolean;
}

/** An archive being written. Nothing appears at the destination before commit. */
export interface ArchiveSink {
  /** Resolves once the entry's bytes have been consumed. */
  add(path: string, data: Uint8Array | AsyncIterable<Uint8Array>, options: ArchiveEntryOptions): Promise<void>;
  /** Finishes the archive and moves it into place; resolves with its path, size and SHA-256. */
  commit(): Promise<{ path: string; size: number; sha256: string }>;
  /** Drops everything written so far. */
  abort(): Promise<void>;
}

export interface ArchiveCreateOptions {
  overwrite: boolean;
  /** Readable by its owner alone (0600): for the plaintext of an encrypted package. */
  ownerOnly?: boolean;
  /** What the archive will hold, as far as known before it is written: its entries, and the size of those whose size is known. */
  expected?: { entries: number; expandedSize: number };
}

/**
 * Writes reproducible ZIP archives: the same entries give byte-identical output. What it
 * writes keeps to the archive limits every reader holds archives to (ArchiveLimitError
 * otherwise, and nothing written).
 */
export interface ArchiveWriter {
  /** Throws OutputExistsError when the file exists and overwrite is false, ArchiveLimitError when `expected` is already past the limits. */
  create(directory: string, fileName: string, options: ArchiveCreateOptions): Promise<ArchiveSink>;
}
