import { createHash } from 'node:crypto';
import { LOG_START, holdsPlace, placeAfter, type LogPlace } from '../../src/domain/data/log-place.js';
import type { AppendLog, LogTail, FitsAmong, OverlayChange, OverlayEntry, OverlayFile, OverlayMount, OverlayStore, PackageOverlay } from '../../src/application/ports/overlay-store.js';
import { OverlayError } from '../../src/domain/errors.js';
import { overlayKey, overlayMountOf } from '../../src/domain/serving/overlay-key.js';
import { unsafePathReason } from '../../src/domain/package/package-paths.js';

/**
 * Overlays held in memory, keyed as FsOverlayStore keys them (workdir and mount), for
 * unit tests; `failAppends` makes every append fail, and `appendDelayMs` makes each one take
 * that long, as a sync to disk can (so requests overlap it). Kept honest by
 * test/contracts/overlay-store.contract.ts. Like a shared store, every log opened keeps its
 * own position and is handed what other openers appended; `watch` hears every change.
 */
export class MemoryOverlayStore implements OverlayStore {
  readonly description = 'memory';
  readonly shared = true;
  readonly overlays = new Map<string, MemoryPackageOverlay>();
  failAppends = false;
  appendDelayMs = 0;
  /** How long reading what others appended takes, as a round trip to a database does. */
  catchUpDelayMs = 0;
  /** Appends made, each one a sync where a store syncs. */
  appends = 0;
  /** Appends ask `decide` first before the delay, with nothing, and again after it when others appended meanwhile: as PostgresOverlayStore's one-round-trip try does. */
  decidesAhead = false;

  async reachable(): Promise<boolean> {
    return true;
  }

  async list(workdir: string): Promise<OverlayMount[]> {
    const prefix = `${workdir}/overlays/`;
    return [...this.overlays.keys()].filter((key) => key.startsWith(prefix)).map((key) => overlayMountOf(key.slice(prefix.length))).filter((mount) => mount !== undefined);
  }

  async close(): Promise<void> {}

  async open(workdir: string, mount: OverlayMount): Promise<MemoryPackageOverlay> {
    return this.at(workdir, mount);
  }

  /** The overlay of a mount, for assertions. */
  at(workdir: string, mount: OverlayMount = { path: '/', packageName: 'demo-site' }): MemoryPackageOverlay {
    const key = `${workdir}/overlays/${overlayKey(mount.path, mount.packageName)}`;
    let overlay = this.overlays.get(key);
    if (!overlay) this.overlays.set(key, (overlay = new MemoryPackageOverlay(key, this)));
    return overlay;
  }
}

export class MemoryPackageOverlay implements PackageOverlay {
  readonly files = new Map<string, Uint8Array>();
  readonly logBytes = new Map<string, Uint8Array>();
  tombstoneList: string[] = [];
  private readonly listeners = new Set<(change: OverlayChange) => void>();

  constructor(
    readonly location: string,
    private readonly store: MemoryOverlayStore,
  ) {}

  async contentFiles(): Promise<OverlayFile[]> {
    return [...this.files].map(([path, bytes]) => ({ path, size: bytes.length }));
  }

  async readContent(path: string): Promise<Uint8Array> {
    const bytes = this.files.get(checked(path));
    if (!bytes) throw new Error(`no overlay file ${path}`);
    return bytes;
  }

  async *streamContent(path: string): AsyncIterable<Uint8Array> {
    yield await this.readContent(path);
  }

  async writeContent(path: string, bytes: Uint8Array, expected?: OverlayEntry, fits?: FitsAmong): Promise<boolean> {
    if (expected && !this.holds(path, expected)) return false;
    // As a shared store checks it: against its files now, which other writers may have changed.
    fits?.([...this.files.keys()]);
    // A copy: the caller's buffer may be reused, a file on disk would not change with it.
    this.files.set(checked(path), bytes.slice());
    this.tombstoneList = this.tombstoneList.filter((p) => p !== path);
    this.emit({ kind: 'written', path, size: bytes.length });
    return true;
  }

  async deleteContent(path: string, expected?: OverlayEntry): Promise<boolean> {
    if (expected && !this.holds(path, expected)) return false;
    this.files.delete(checked(path));
    if (!this.tombstoneList.includes(path)) this.tombstoneList.push(path);
    this.emit({ kind: 'deleted', path });
    return true;
  }

  /** Whether the path holds what a conditional write expects, as a shared store checks it under its hold. */
  private holds(path: string, expected: OverlayEntry): boolean {
    const bytes = this.files.get(path);
    if (bytes) return expected.kind === 'file' && expected.sha256 === createHash('sha256').update(bytes).digest('hex');
    return expected.kind === (this.tombstoneList.includes(path) ? 'tombstone' : 'none');
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  async tombstones(): Promise<string[]> {
    return [...this.tombstoneList];
  }

  watch(listener: (change: OverlayChange) => void): () => void {
    this.listeners.add(listener);
    listener({ kind: 'any' });
    return () => this.listeners.delete(listener);
  }

  /** Tells every watcher of a change, as a shared store tells the reactors that did not make it. */
  emit(change: OverlayChange): void {
    for (const listener of this.listeners) listener(change);
  }

  /** How many times a dataset's whole log was read. */
  logReads = 0;

  async readLog(dataset: string): Promise<Uint8Array> {
    this.logReads++;
    return this.logBytes.get(dataset) ?? new Uint8Array();
  }

  /** How many reads of a log went on from where an earlier one ended. */
  logTailReads = 0;

  /** As a file reads: the bytes past `from` while the log still holds, before it, what was read there; else the whole log (a whole read, counted in logReads). */
  async readLogFrom(dataset: string, from: LogPlace): Promise<LogTail> {
    const log = this.logBytes.get(dataset) ?? new Uint8Array();
    if (from.length > 0 && log.length >= from.length && holdsPlace(from, log.subarray(0, from.length))) {
      this.logTailReads++;
      const bytes = log.slice(from.length);
      return { bytes, whole: false, place: placeAfter(from, bytes) };
    }
    const bytes = await this.readLog(dataset);
    return { bytes, whole: true, place: placeAfter(LOG_START, bytes) };
  }

  async logs(): Promise<string[]> {
    return [...this.logBytes.keys()].filter((dataset) => this.logBytes.get(dataset)!.length > 0).sort();
  }

  async openLog(dataset: string, length: number): Promise<AppendLog> {
    // Complete lines past `length` are other writers' (handed to the next append); only a torn tail is cut.
    const current = this.logBytes.get(dataset) ?? new Uint8Array();
    const whole = Math.max(length, current.lastIndexOf(0x0a) + 1);
    this.logBytes.set(dataset, current.subarray(0, whole));
    let seen = length;
    const appended = () => {
      const log = this.logBytes.get(dataset) ?? new Uint8Array();
      const news = log.slice(seen, log.lastIndexOf(0x0a) + 1);
      seen += news.length;
      return news;
    };
    return {
      append: async (decide) => {
        let bytes = this.store.decidesAhead ? decide(new Uint8Array()) : undefined;
        if (this.store.appendDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.store.appendDelayMs));
        if (this.store.failAppends) throw new Error('append failed');
        this.store.appends++;
        const news = appended();
        if (bytes === undefined || news.length > 0) bytes = decide(news);
        const current = this.logBytes.get(dataset)!;
        const next = new Uint8Array(current.length + bytes.length);
        next.set(current);
        next.set(bytes, current.length);
        this.logBytes.set(dataset, next);
        seen = next.length;
        if (bytes.length > 0) this.emit({ kind: 'data', dataset });
      },
      catchUp: async () => {
        if (this.store.catchUpDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.store.catchUpDelayMs));
        return appended();
      },
      close: async () => undefined,
    };
  }

  /** The log as text, for assertions. */
  logText(dataset: string): string {
    return new TextDecoder().decode(this.logBytes.get(dataset) ?? new Uint8Array());
  }
}

/** Content paths stay below the content root, as on disk. */
function checked(path: string): string {
  const reason = unsafePathReason(path);
  if (reason) throw new OverlayError(`unsafe overlay path ${path}: ${reason}`);
  return path;
}
