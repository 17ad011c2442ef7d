/** Files the operator names (deploy.json, password files, the session secret), read whole. */
export interface LocalFiles {
  /** The file's bytes, or undefined when there is no such file. */
  read(path: string): Promise<Uint8Array | undefined>;
  /** A token that changes whenever the file does (mtime and size), or undefined when it is absent. */
  version(path: string): Promise<string | undefined>;
  /** Resolves a path relative to the directory of another file. */
  resolve(from: string, path: string): string;
}
