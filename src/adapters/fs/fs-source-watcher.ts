import { watch, type FSWatcher } from 'node:fs';
import type { SourceChanges, SourceWatcher } from '../../application/ports/source-watcher.js';

/** A save writes several files and events: one reload once they settle. */
const SETTLE_MS = 120;
/** How soon a watch that failed is made again. */
const REWATCH_MS = 500;

/**
 * fs.watch, recursive (Linux, macOS, Windows on Node 20): each event is `touched` at once
 * (the kernel queues it as the file is written, ahead of a request sent after the write),
 * and a burst of them `settled` once. A watch that fails (the directory gone for a while,
 * a link loop that node's recursive watch trips on) is made again until it holds, then
 * counts as a change: what happened meanwhile was not heard. Closed on its error alone,
 * one passing link loop ended every later reload.
 */
export class FsSourceWatcher implements SourceWatcher {
  watch(directory: string, changes: SourceChanges): { close(): void } {
    let settle: NodeJS.Timeout | undefined;
    let again: NodeJS.Timeout | undefined;
    let watcher: FSWatcher | undefined;
    let closed = false;
    const changed = () => {
      changes.touched();
      clearTimeout(settle);
      settle = setTimeout(() => changes.settled(), SETTLE_MS);
    };
    const start = (afterFailure: boolean) => {
      if (closed) return;
      try {
        watcher = watch(directory, { recursive: true, persistent: false }, changed);
      } catch {
        again = setTimeout(() => start(true), REWATCH_MS).unref();
        return;
      }
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
        if (!closed) again = setTimeout(() => start(true), REWATCH_MS).unref();
      });
      if (afterFailure) changed();
    };
    start(false);
    return {
      close: () => {
        closed = true;
        clearTimeout(settle);
        clearTimeout(again);
        watcher?.close();
      },
    };
  }
}
