import { watch } from 'node:fs';
import type { SourceWatcher } from '../../application/ports/source-watcher.js';

/** A save writes several files and events: one reload once they settle. */
const SETTLE_MS = 120;

/** fs.watch, recursive (Linux, macOS, Windows on Node 20), with the events of a burst folded into one call. */
export class FsSourceWatcher implements SourceWatcher {
  watch(directory: string, changed: () => void): { close(): void } {
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(directory, { recursive: true, persistent: false }, () => {
      clearTimeout(timer);
      timer = setTimeout(changed, SETTLE_MS);
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
