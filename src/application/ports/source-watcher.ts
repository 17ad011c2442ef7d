/** What a watch of a directory reports: each change as it happens, and the end of a burst of them. */
export interface SourceChanges {
  /** A file below the directory changed: called at once, before any request sent after the change is read. */
  touched(): void;
  /** The changes have settled (an editor's save writes several files): one reload for the burst. */
  settled(): void;
}

/** Tells when the files below a directory change: what `--watch` reloads a directory source on. */
export interface SourceWatcher {
  /** Reports changes below `directory` until `close` is called. */
  watch(directory: string, changes: SourceChanges): { close(): void };
}
