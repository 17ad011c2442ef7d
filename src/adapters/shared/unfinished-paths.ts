import { rmSync } from 'node:fs';

const SIGNALS = [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
] as const;

/**
 * Files and folders being written beside their final name (a download into a store, an
 * unpack's draft), and a reactor's temporary workdir: an interrupted command (Ctrl-C, a kill from a supervisor) removes them
 * before it exits, so a stopped run leaves nothing behind. The handlers are installed only
 * while something is unfinished; otherwise each signal keeps its default. A process that
 * listens for the signal itself (the reactor stops gracefully, and lets its writes finish)
 * is left to do so.
 */
export const unfinished = new (class {
  private readonly paths = new Set<string>();
  private readonly handlers = SIGNALS.map(([signal, number]) => ({
    signal,
    handle: () => {
      if (process.listenerCount(signal) > 1) return;
      this.removeAll();
      process.exit(128 + number);
    },
  }));

  add(path: string): void {
    // First in line: a listener of the process's own (the reactor's graceful stop) may remove itself as it hears the signal, and must still count.
    if (this.paths.size === 0) for (const { signal, handle } of this.handlers) process.prependListener(signal, handle);
    this.paths.add(path);
  }

  /** Removes them now: for a process that ends itself on a signal it listens for (a reactor stopped while it starts). */
  removeAll(): void {
    for (const path of this.paths) rmSync(path, { recursive: true, force: true });
  }

  delete(path: string): void {
    if (!this.paths.delete(path)) return;
    if (this.paths.size === 0) for (const { signal, handle } of this.handlers) process.off(signal, handle);
  }
})();
