import { readdirSync, statSync, watch, type Dirent, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import type { SourceChanges, SourceWatcher } from '../../application/ports/source-watcher.js';

/** A save writes several files and events: one reload once they settle. */
const SETTLE_MS = 120;
/** How long a folder's events gather before it is listed again for new folders to watch. */
const RESCAN_MS = 50;
/** How soon a watch that failed is made again. */
const REWATCH_MS = 500;
/** Folders a package walk skips: their changes are none of the package's. */
const SKIPPED = new Set(['.git', '.hg', '.svn']);

/**
 * One fs.watch per folder below the directory (inotify on Linux): each event is `touched`
 * at once (the kernel queues it as the file is written, ahead of a request sent after the
 * write), and a burst of them `settled` once. A folder with events is listed again (once
 * per burst, off the event loop) so folders made in it are watched too.
 *
 * Not node's recursive watch: on Linux, Node 20 lists a folder synchronously on every
 * event in it, so copying 5,000 files into a package held the event loop, /healthz
 * included, for a minute; and a link loop made it fail for good. A folder whose watch
 * fails, or that is removed or replaced (moved away, another put in its place), is watched
 * again from the top, and that counts as a change; the package folder itself once it is back.
 */
export class FsSourceWatcher implements SourceWatcher {
  watch(directory: string, changes: SourceChanges): { close(): void } {
    const watchers = new Map<string, FSWatcher>();
    const rescans = new Map<string, NodeJS.Timeout>();
    let settle: NodeJS.Timeout | undefined;
    let again: NodeJS.Timeout | undefined;
    let closed = false;
    const changed = () => {
      changes.touched();
      clearTimeout(settle);
      settle = setTimeout(() => changes.settled(), SETTLE_MS);
    };
    const failed = (folder: string) => {
      // The folders below it went with it: their watches follow the old ones wherever they went.
      for (const [watched, watcher] of watchers) {
        if (watched !== folder && !watched.startsWith(folder + sep)) continue;
        watcher.close();
        watchers.delete(watched);
      }
      if (closed || again) return;
      again = setTimeout(() => {
        again = undefined;
        // The package folder gone (removed, or moved away to be put back): looked for until it is there again.
        if (!isFolder(directory)) return failed(directory);
        void cover(directory).then(changed);
      }, REWATCH_MS).unref();
    };
    /** Watches `folder` unless it is already; false when it cannot be (gone already, or not a folder: its parent's next event says so). */
    const watch_ = (folder: string): boolean => {
      if (watchers.has(folder)) return true;
      let watcher: FSWatcher;
      try {
        const identity = identityOf(folder);
        watcher = watch(folder, { persistent: false }, (_event, name) => {
          changed();
          // A watch follows its folder, not its name: one removed or moved away (to be replaced by another of that name) tells only itself, under its own name.
          if (name?.toString() === basename(folder) && identityOf(folder) !== identity) return failed(folder);
          // A folder made here is watched before the next event is read: a file written in it right after must be heard.
          if (name && !SKIPPED.has(name.toString()) && isFolder(join(folder, name.toString()))) coverNow(join(folder, name.toString()));
          if (rescans.has(folder)) return;
          const rescan = () => {
            rescans.delete(folder);
            void cover(folder);
          };
          rescans.set(folder, setTimeout(rescan, RESCAN_MS).unref());
        });
      } catch {
        return false;
      }
      watcher.on('error', () => failed(folder));
      watchers.set(folder, watcher);
      return true;
    };
    /** Watches `folder` and every folder below it not watched yet, listing them off the event loop. */
    const cover = async (folder: string): Promise<void> => {
      if (closed || !watch_(folder)) return;
      const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
      const folders = entries.filter((entry) => entry.isDirectory() && !SKIPPED.has(entry.name)).map((entry) => join(folder, entry.name));
      // Folders removed since: their watches end with them.
      const present = new Set(folders);
      for (const [watched, watcher] of watchers) {
        if (dirname(watched) !== folder || watched === folder || present.has(watched)) continue;
        watcher.close();
        watchers.delete(watched);
      }
      await Promise.all(folders.map((child) => cover(child)));
    };
    // The first time through, at once: a file written right after the start must be heard.
    const coverNow = (folder: string): void => {
      if (!watch_(folder)) return;
      let entries: Dirent[] = [];
      try {
        entries = readdirSync(folder, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) if (entry.isDirectory() && !SKIPPED.has(entry.name)) coverNow(join(folder, entry.name));
    };
    coverNow(directory);
    return {
      close: () => {
        closed = true;
        clearTimeout(settle);
        clearTimeout(again);
        for (const timer of rescans.values()) clearTimeout(timer);
        for (const watcher of watchers.values()) watcher.close();
        watchers.clear();
      },
    };
  }
}

/** Which folder `path` names now; undefined when none. Its birth time too: a folder removed and made again at once often gets the same inode back. */
function identityOf(path: string): string | undefined {
  try {
    const info = statSync(path, { throwIfNoEntry: false, bigint: true });
    return info?.isDirectory() ? `${info.dev}:${info.ino}:${info.birthtimeNs}` : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `path` is a folder now: a link loop (ELOOP), a name gone since its event, are not. */
function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
