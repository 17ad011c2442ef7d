/** Tells when the files below a directory change: what `--watch` reloads a directory source on. */
export interface SourceWatcher {
  /** Calls `changed` once a burst of changes has settled; `close` stops watching. */
  watch(directory: string, changed: () => void): { close(): void };
}
