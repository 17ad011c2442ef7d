import { fstatSync, statSync, type Stats } from 'node:fs';
import { chmod, lstat, open, readdir, realpath, rename, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { OverlayError } from '../../domain/errors.js';
import { PARTIAL_SUFFIX, TOMBSTONES_FILE, unsafePathReason } from '../../domain/package/package-paths.js';
import { removeFile, syncFolders, writeWholeFile } from './whole-file.js';
import type { AppendLog, LogTail, OverlayFile, OverlayMount, OverlayStore, PackageOverlay } from '../../application/ports/overlay-store.js';
import { LOG_START, checkLength, holdsPlace, placeAfter, type LogPlace } from '../../domain/data/log-place.js';
import { readFully } from '../shared/positional-read.js';
import { overlayKey, overlayMountOf } from '../../domain/serving/overlay-key.js';
import { makeDirectories } from '../shared/make-directories.js';
import { writeAll } from '../shared/write-all.js';
import { inWorkdir, overlayError } from './workdir-errors.js';
import { NOT_A_FILE, openWithoutWaiting, readWithoutWaiting } from './read-without-waiting.js';

const LOG_SUFFIX = '.log.jsonl';

/**
 * Overlays as DECISIONS.md lays them out in the workdir, one per mount:
 * `overlays/<mount key>/content/...`, `overlays/<mount key>/content/.pkg-tombstones` and
 * `overlays/<mount key>/data/<dataset>.log.jsonl`.
 */
export class FsOverlayStore implements OverlayStore {
  readonly description = 'files in the workdir';
  readonly shared = false;

  async open(workdir: string, mount: OverlayMount): Promise<PackageOverlay> {
    const location = join(workdir, 'overlays', overlayKey(mount.path, mount.packageName));
    await adoptLegacy(workdir, join(workdir, 'overlays', mount.packageName), location);
    if (mount.ownerOnly) await keepToOwner(workdir, location);
    return new FsPackageOverlay(workdir, location);
  }

  async reachable(): Promise<boolean> {
    return true;
  }

  async list(workdir: string): Promise<OverlayMount[]> {
    let names: string[];
    try {
      names = await readdir(join(workdir, 'overlays'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw overlayError(`cannot read ${inWorkdir(workdir, join(workdir, 'overlays'))}`, error);
    }
    // A folder put there by other means, whose name no key has, is not an overlay.
    return names.map(overlayMountOf).filter((mount) => mount !== undefined);
  }

  async close(): Promise<void> {}
}

/** The overlay's folder made, or made again, 0700: its files and folders inside, whatever their modes, are then the owner's alone. */
async function keepToOwner(workdir: string, location: string): Promise<void> {
  try {
    await makeDirectories(location);
    await chmod(location, 0o700);
  } catch (error) {
    throw overlayError(`cannot keep ${inWorkdir(workdir, location)} to its owner`, error);
  }
}

/** `overlays/<package name>/` of older versions moves to the first mount's key: a rename, so a second mount finds nothing to adopt. */
async function adoptLegacy(workdir: string, legacy: string, location: string): Promise<void> {
  try {
    await stat(location);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw overlayError(`cannot read ${inWorkdir(workdir, location)}`, error);
  }
  try {
    await rename(legacy, location);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw overlayError(`cannot adopt the overlay ${inWorkdir(workdir, legacy)}`, error);
  }
}

class FsPackageOverlay implements PackageOverlay {
  private readonly content: string;
  private realContent: Promise<string> | undefined;
  private readonly data: string;
  /**
   * The tombstones last read or written, which the served package holds too. A write
   * rewrites this whole set rather than what the file holds then: removed or edited by
   * hand while served, it would otherwise lose the paths the reactor still hides, and
   * those files would show through again after a restart.
   */
  private held: readonly string[] | undefined;
  /** The logs open for appends, by dataset: a log removed by hand is read from its handle until the next append writes it back. */
  private readonly appending = new Map<string, FsAppendLog>();

  constructor(
    private readonly workdir: string,
    readonly location: string,
  ) {
    this.content = join(location, 'content');
    this.data = join(location, 'data');
  }

  /** A path as errors name it (see `inWorkdir`). */
  private shown(path: string): string {
    return inWorkdir(this.workdir, path);
  }

  private async writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
    await writeWholeFile(path, bytes).catch((error: unknown) => {
      throw overlayError(`cannot write ${this.shown(path)}`, error);
    });
  }

  async contentFiles(): Promise<OverlayFile[]> {
    let names: string[];
    try {
      names = await readdir(this.content, { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw overlayError(`cannot read ${this.shown(this.content)}`, error);
    }
    const files: OverlayFile[] = [];
    for (const name of names) {
      const path = name.split(sep).join('/');
      // Tombstones are not content, and a write in progress is not a file yet.
      if (path === TOMBSTONES_FILE || path.endsWith(PARTIAL_SUFFIX)) continue;
      const file = join(this.content, name);
      // Only what writes made: a link put here by hand (to /etc/shadow, through a linked folder, or to nothing) is no file of the overlay.
      const info = await lstat(file).catch(() => undefined);
      if (info?.isFile() && (await this.holds(file))) files.push({ path, size: info.size });
    }
    return files;
  }

  async readContent(path: string): Promise<Uint8Array> {
    const { file, handle } = await this.opened(path);
    try {
      return await handle.readFile();
    } catch (error) {
      throw this.unreadable(file, error);
    } finally {
      await handle.close();
    }
  }

  async *streamContent(path: string): AsyncIterable<Uint8Array> {
    const { file, handle } = await this.opened(path);
    try {
      // The stream closes the handle when it ends or fails.
      yield* handle.createReadStream({ highWaterMark: 64 * 1024 }) as AsyncIterable<Uint8Array>;
    } catch (error) {
      throw this.unreadable(file, error);
    }
  }

  /**
   * A written file, opened without waiting: a named pipe put in its place by hand would
   * hold the open, and a thread of the pool with it, until someone wrote to it, and every
   * later read of that path behind it. A folder is opened and fails its read (EISDIR).
   */
  private async opened(path: string): Promise<{ file: string; handle: FileHandle }> {
    const file = await this.heldFile(path);
    const { handle } = await openWithoutWaiting(file, { folders: true }).catch((error: unknown) => {
      throw this.unreadable(file, error);
    });
    return { file, handle };
  }

  /** A written file the system will not read now (no file descriptor left, made a folder or unreadable by hand, or not a file any more): the overlay's fault, said as one. */
  private unreadable(file: string, error: unknown): OverlayError {
    if ((error as NodeJS.ErrnoException).code === 'ENOTREG') return new OverlayError(`${this.shown(file)} is ${NOT_A_FILE}`);
    return overlayError(`cannot read ${this.shown(file)}`, error);
  }

  /** The file of a content path, when it lies in the overlay's folder itself, links resolved. */
  private async heldFile(path: string): Promise<string> {
    const file = this.contentPath(path);
    if (!(await this.holds(file))) throw new OverlayError(`${this.shown(file)} is not a file of the overlay (a link out of it, or gone)`);
    return file;
  }

  private async holds(file: string): Promise<boolean> {
    const realContent = (this.realContent ??= realpath(this.content));
    const [real, root] = await Promise.all([
      realpath(file).catch(() => undefined),
      realContent.catch(() => {
        // No content folder yet, or removed by hand: the next write makes it, and the next read must find it then.
        if (this.realContent === realContent) this.realContent = undefined;
        return undefined;
      }),
    ]);
    return real !== undefined && root !== undefined && real.startsWith(root + sep);
  }

  /** This process is the workdir's one writer, which decided any condition in turn with its writes: `expected` holds. */
  async writeContent(path: string, bytes: Uint8Array): Promise<boolean> {
    const file = this.contentPath(path);
    const tombstones = this.held ?? (await this.tombstones());
    await this.writeAtomically(file, bytes);
    if (!tombstones.includes(path)) return true;
    try {
      await this.writeTombstones(tombstones.filter((p) => p !== path));
    } catch (error) {
      // The file beside its tombstone would be served after a restart: a refused write must not be. A deleted path had no file to restore.
      await removeFile(file, this.content).catch(() => undefined);
      throw error;
    }
    return true;
  }

  async deleteContent(path: string): Promise<boolean> {
    const file = this.contentPath(path);
    const before = this.held ?? (await this.tombstones());
    if (!before.includes(path)) await this.writeTombstones([...before, path]);
    try {
      await this.removeContent(file);
    } catch (error) {
      // The answer must be true after a restart too: a delete that failed leaves no tombstone behind.
      if (!before.includes(path)) await this.writeTombstones(before).catch(() => undefined);
      throw error;
    }
    return true;
  }

  watch(): () => void {
    return () => undefined;
  }

  private async removeContent(file: string): Promise<void> {
    try {
      const info = await stat(file);
      if (!info.isFile()) throw new OverlayError(`${this.shown(file)} is not a file`);
      await removeFile(file, this.content);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error instanceof OverlayError ? error : overlayError(`cannot remove ${this.shown(file)}`, error);
    }
  }

  /** This process is the files' only writer, and takes its writes one at a time already. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  async tombstones(): Promise<string[]> {
    let text: string;
    try {
      text = (await readWithoutWaiting(join(this.content, TOMBSTONES_FILE))).toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.hold([]);
      throw overlayError(`cannot read the overlay tombstones of ${this.shown(this.location)}`, error);
    }
    let list: unknown;
    try {
      list = JSON.parse(text);
    } catch {
      list = undefined;
    }
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) throw new OverlayError(`${this.shown(join(this.content, TOMBSTONES_FILE))} must be a JSON array of paths`);
    return this.hold(list as string[]);
  }

  private hold(paths: string[]): string[] {
    this.held = [...paths];
    return paths;
  }

  private async writeTombstones(paths: readonly string[]): Promise<void> {
    await this.writeAtomically(join(this.content, TOMBSTONES_FILE), Buffer.from(JSON.stringify(paths, null, 2) + '\n'));
    this.held = paths;
  }

  async readLog(dataset: string): Promise<Uint8Array> {
    return (await this.readLogFrom(dataset, LOG_START)).bytes;
  }

  /** Reads past `from` when the file still holds, just before it, the bytes read there: a log this reactor alone appends to, which only a torn tail past every read place is cut from. */
  async readLogFrom(dataset: string, from: LogPlace): Promise<LogTail> {
    const path = this.logPath(dataset);
    let handle: FileHandle;
    let size: number;
    try {
      // Without waiting: a named pipe put in the log's place would hold every read of the past, and a thread of the pool each.
      ({ handle, info: { size } } = await openWithoutWaiting(path));
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (code === 'ENOTREG') throw this.unreadable(path, error);
      if (code !== 'ENOENT') throw overlayError(`cannot read the overlay log of dataset ${dataset}`, error);
      const bytes = await this.heldLog(dataset);
      return { bytes, whole: true, place: placeAfter(LOG_START, bytes) };
    }
    try {
      const checked = checkLength(from);
      if (from.length > 0 && size >= from.length) {
        const read = Buffer.alloc(size - from.length + checked);
        // A file cut short meanwhile fails the check, and is read whole.
        if ((await readFully(handle, read, from.length - checked)) && holdsPlace(from, read.subarray(0, checked))) {
          const bytes = read.subarray(checked);
          return { bytes, whole: false, place: placeAfter(from, bytes) };
        }
      }
      const bytes = await handle.readFile();
      return { bytes, whole: true, place: placeAfter(LOG_START, bytes) };
    } catch (error) {
      throw error instanceof OverlayError ? error : overlayError(`cannot read the overlay log of dataset ${dataset}`, error);
    } finally {
      await handle.close();
    }
  }

  /**
   * A log not on disk: none, or one removed by hand while open, whose operations the
   * served data still holds. Its past is read from the handle then, as the data is, so
   * history and ?at= agree with the item list until the next append writes the log back.
   */
  private async heldLog(dataset: string): Promise<Uint8Array> {
    const log = this.appending.get(dataset);
    if (!log) return new Uint8Array();
    try {
      return await log.held();
    } catch (error) {
      throw overlayError(`cannot read the overlay log of dataset ${dataset}`, error);
    }
  }

  async logs(): Promise<string[]> {
    try {
      return (await readdir(this.data)).filter((name) => name.endsWith(LOG_SUFFIX)).map((name) => name.slice(0, -LOG_SUFFIX.length)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw overlayError(`cannot read ${this.shown(this.data)}`, error);
    }
  }

  async openLog(dataset: string, length: number): Promise<AppendLog> {
    const path = this.logPath(dataset);
    let created: string | undefined;
    let handle: FileHandle;
    try {
      created = await makeDirectories(dirname(path));
      handle = await open(path, 'a+');
    } catch (error) {
      // A workdir that takes no writes (read-only, full, not the reactor's) fails a dataset's first write here.
      throw overlayError(`cannot open ${this.shown(path)}`, error);
    }
    try {
      // The log's name is on disk before its first append is acknowledged.
      await syncFolders(dirname(path), created);
      const { size } = await handle.stat();
      if (size > length) {
        const tail = Buffer.alloc(size - length);
        await handle.read(tail, 0, tail.length, length);
        if (tail.includes(0x0a)) throw new OverlayError(`${this.shown(path)} holds operations written after it was read (${size - length} bytes); it is never cut: is another reactor using this workdir?`);
        // Only a torn last line, which was never acknowledged, is dropped.
        await handle.truncate(length);
        await handle.datasync();
      }
    } catch (error) {
      await handle.close();
      throw error instanceof OverlayError ? error : overlayError(`cannot open ${this.shown(path)}`, error);
    }
    const log = new FsAppendLog(handle, length, path, this.shown(path), () => {
      if (this.appending.get(dataset) === log) this.appending.delete(dataset);
    });
    this.appending.set(dataset, log);
    return log;
  }

  private contentPath(path: string): string {
    const reason = unsafePathReason(path);
    if (reason) throw new OverlayError(`unsafe overlay path ${path}: ${reason}`);
    const full = join(this.content, path);
    if (relative(this.content, full).startsWith('..')) throw new OverlayError(`unsafe overlay path ${path}`);
    return full;
  }

  private logPath(dataset: string): string {
    return join(this.data, dataset + LOG_SUFFIX);
  }
}

class FsAppendLog implements AppendLog {
  constructor(
    private handle: FileHandle,
    private length: number,
    private readonly path: string,
    private readonly shown: string,
    private readonly closed: () => void,
  ) {}

  /** This process is the log's only writer (the workdir lock says so): nothing was appended elsewhere. */
  async append(decide: (appendedElsewhere: Uint8Array) => Uint8Array): Promise<void> {
    const bytes = decide(new Uint8Array());
    if (bytes.length === 0) return;
    await this.inPlace();
    try {
      await writeAll(this.handle, bytes);
      await this.handle.datasync();
      this.length += bytes.length;
    } catch (error) {
      // Leave no half-written operation behind to corrupt the next append.
      await this.handle.truncate(this.length).catch(() => undefined);
      throw overlayError('cannot append to the overlay log', error);
    }
  }

  /**
   * The log removed by hand (it, its folder or the overlay's) while open: appended to, the
   * handle would take writes no restart reads, acknowledged and lost. What this log was
   * acknowledged for is written back in place first, from the handle that still reads it.
   */
  private async inPlace(): Promise<void> {
    // On the event loop's thread: two calls that read metadata the kernel holds, where two trips
    // through the thread pool lengthened every append's wait (an acknowledgement waits on it).
    let onDisk: Stats | undefined;
    let held: Stats;
    try {
      onDisk = statSync(this.path, { throwIfNoEntry: false });
      held = fstatSync(this.handle.fd);
    } catch (error) {
      throw overlayError(`cannot read ${this.shown}`, error);
    }
    if (onDisk !== undefined) {
      if (onDisk.ino === held.ino && onDisk.dev === held.dev) return;
      throw new OverlayError(`${this.shown} was replaced while the reactor wrote it; it is never overwritten: restart the reactor to read the new one`);
    }
    try {
      await writeWholeFile(this.path, await this.held());
      const reopened = await open(this.path, 'a+');
      await this.handle.close().catch(() => undefined);
      this.handle = reopened;
    } catch (error) {
      throw overlayError(`cannot write ${this.shown} again`, error);
    }
  }

  /** What this log was acknowledged for, read from the handle: it reads the file still, removed or not. */
  async held(): Promise<Uint8Array> {
    const kept = Buffer.alloc(this.length);
    if (!(await readFully(this.handle, kept, 0))) throw Object.assign(new Error(`the log holds fewer than its ${this.length} bytes`), { code: 'EIO' });
    return kept;
  }

  async catchUp(): Promise<Uint8Array> {
    return new Uint8Array();
  }

  close(): Promise<void> {
    this.closed();
    return this.handle.close();
  }
}
