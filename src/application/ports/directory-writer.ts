/** A directory being filled. Nothing appears at the destination before commit. */
export interface DirectoryDraft {
  /**
   * `path` is relative to the destination; the adapter refuses anything that escapes it,
   * and a path the draft holds already (to the file system: one differing only in letter
   * case, where it folds case) with UnsafeEntryError, rather than write over it.
   */
  write(path: string, data: AsyncIterable<Uint8Array>): Promise<void>;
  commit(): Promise<string>;
  discard(): Promise<void>;
}

export interface DirectoryWriter {
  /** Throws OutputExistsError when the destination exists and replace is false. */
  create(destination: string, options: { replace: boolean }): Promise<DirectoryDraft>;
}
