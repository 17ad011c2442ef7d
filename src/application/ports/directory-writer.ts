/** A directory being filled. Nothing appears at the destination before commit. */
export interface DirectoryDraft {
  /**
   * `path` is relative to the destination; the adapter refuses anything that escapes it,
   * and, with UnsafeEntryError, a path that lands on one written already (a file system
   * that folds case takes `A.txt` and `a.txt` for one).
   */
  write(path: string, data: AsyncIterable<Uint8Array>): Promise<void>;
  commit(): Promise<string>;
  discard(): Promise<void>;
}

export interface DirectoryWriter {
  /** Throws OutputExistsError when the destination exists and replace is false. */
  create(destination: string, options: { replace: boolean }): Promise<DirectoryDraft>;
}
