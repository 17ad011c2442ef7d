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

/** Writes reproducible ZIP archives: the same entries give byte-identical output. */
export interface ArchiveWriter {
  /** Throws OutputExistsError when the file exists and overwrite is false. */
  create(directory: string, fileName: string, options: { overwrite: boolean }): Promise<ArchiveSink>;
}
