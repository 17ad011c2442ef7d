import { watch } from 'node:fs';
import type { SourceChanges, SourceWatcher } from '../../application/ports/source-watcher.js';

/** A save writes several files and events: one reload once they settle. */
const SETTLE_MS = 120;

/**
 * fs.watch, recursive (Linux, macOS, Windows on Node 20): each event is `touched` at once
 * (the kernel queues it as the file is written, ahead of a request sent after the write),
 * and a burst of them `settled` once.
 */
export class FsSourceWatcher implements SourceWatcher {
  watch(directory: string, changes: SourceChanges): { close(): void } {
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(directory, { recursive: true, persistent: false }, () => {
      changes.touched();
      clearTimeout(timer);
      timer = setTimeout(() => changes.settled(), SETTLE_MS);
    });
    // A watched directory that goes away ends the watch; the reactor keeps serving what it has.
    watcher.on('error', () => watcher.close());
    return {
      close: () => {
        clearTimeout(timer);
        watcher.close();
      },
    };
  }
}
