/** Single files written whole: they appear at their path complete, or not at all. */
export interface FileWriter {
  /**
   * Writes the stream to a hidden sibling and renames it into place once the stream has
   * ended; a stream that throws leaves nothing behind. OutputExistsError when the file
   * exists and overwrite is false. `mode` defaults to 0644.
   */
  write(path: string, data: AsyncIterable<Uint8Array>, options: { overwrite: boolean; mode?: number }): Promise<void>;
  /** Replaces files in a package directory and removes others, each write whole. */
  update(directory: string, changes: { write: ReadonlyMap<string, Uint8Array>; remove: readonly string[] }): Promise<void>;
  /** Removes a file or a directory tree; nothing there is fine. */
  remove(path: string): Promise<void>;
}
