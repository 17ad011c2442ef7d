import { OverlayError } from '../../domain/errors.js';
import type { AppendLog, LogTail, OverlayBackend, OverlayChange, OverlayMount, PackageOverlay } from '../../application/ports/overlay-store.js';
import { LOG_START, placeAfter, type LogPlace } from '../../domain/data/log-place.js';
import type { SessionRevocations } from '../../application/ports/session-revocations.js';
import { Turn } from './turn.js';

/** Which worker asked: the primary's name for it. */
export type WorkerId = number;

/** What the primary tells the workers that did not make a change. */
export interface Announcer {
  change(from: WorkerId, location: string, change: OverlayChange): void;
  revoked(from: WorkerId, workdir: string, id: string): void;
}

/**
 * How many bytes of recent appends the primary keeps in memory per log, for workers that
 * catch up: past that, a worker that lags (or opens the log at a length read long ago) is
 * handed its bytes from the file. Without a bound a reactor running for weeks would keep
 * every byte written since it started.
 */
export const KEPT_LOG_BYTES = 1024 * 1024;

/**
 * One log as the primary holds it for every worker: the store's own open log, and the
 * latest appends made through it (where each starts in the log), so each worker is
 * handed what lies past its own position without reading the file. What every worker
 * has read is dropped, and never more than `kept` bytes stay.
 */
class SharedLog extends Turn<number> {
  private readonly recent: Array<{ at: number; bytes: Uint8Array }> = [];
  private recentBytes = 0;
  /** Where the log ends: `base`, and what was appended through it since. */
  length: number;
  /** The holder's append on its way to disk: its hold is let go when it is done, not before, even if its worker died. */
  committing: Promise<void> | undefined;

  constructor(
    readonly log: AppendLog,
    readonly base: number,
    private readonly kept: number,
  ) {
    super();
    this.length = base;
  }

  /** The bytes from `position` to the end, or undefined when they are no longer all in memory. */
  since(position: number): Uint8Array | undefined {
    if (position === this.length) return new Uint8Array();
    const first = this.recent.findIndex(({ at, bytes }) => at + bytes.length > position);
    if (first < 0 || this.recent[first]!.at > position) return undefined;
    const news = new Uint8Array(this.length - position);
    let offset = 0;
    for (const { at, bytes } of this.recent.slice(first)) {
      const part = bytes.subarray(Math.max(0, position - at));
      news.set(part, offset);
      offset += part.length;
    }
    return news;
  }

  added(bytes: Uint8Array): void {
    this.recent.push({ at: this.length, bytes });
    this.length += bytes.length;
    this.recentBytes += bytes.length;
  }

  /** Forgets what every worker has read (`oldest`: the lowest position of the log's handles), and all but the latest `kept` bytes. */
  trim(oldest: number): void {
    while (this.recent.length > 0) {
      const { at, bytes } = this.recent[0]!;
      if (at + bytes.length > oldest && this.recentBytes <= this.kept) return;
      this.recent.shift();
      this.recentBytes -= bytes.length;
    }
  }

  get retained(): number {
    return this.recentBytes;
  }

  /** A closed handle, or a dead worker's, waits no more, and lets go unless its append is still being written. */
  drop(handle: number): void {
    this.unqueue(handle, new OverlayError('the log was closed while waiting for its turn'));
    if (!this.committing || this.holder !== handle) this.letGo(handle);
  }
}

/** A worker's open log: where it has read up to. */
interface Handle {
  worker: WorkerId;
  key: string;
  dataset: string;
  location: string;
  cursor: number;
  /** The handle's catch-up in progress: the next waits for it, so each hands over bytes in order, once. */
  advancing: Promise<unknown>;
}

/**
 * The one writer of a reactor that runs as several processes over the workdir's files:
 * the primary owns the real overlay store and revocations, and does every write for the
 * workers, one log append at a time (two-phase: `hold` hands the worker what the others
 * appended past its position, `commit` appends what it decided, durably, and lets go).
 * What a worker changes is announced to the others. A worker that dies lets go of its holds.
 */
export class OverlayWriter {
  private readonly overlays = new Map<string, Promise<PackageOverlay>>();
  private readonly openLogs = new Map<string, Promise<SharedLog>>();
  private readonly handles = new Map<number, Handle>();
  private nextHandle = 1;
  /** Content writes of one overlay, one at a time: tombstones are read, changed and written whole. */
  private readonly contentTurns = new Map<string, Promise<unknown>>();
  private readonly revocations = new Map<string, Promise<SessionRevocations>>();
  /** Per overlay, the worker whose content write (check and write) or save goes on now; the others wait for it. */
  private readonly contentHolds = new Map<string, Turn<number>>();
  private readonly contentHolders = new Map<number, { worker: WorkerId; location: string }>();
  /** Workers that exited: what they were still opening is not kept for them. */
  private readonly departed = new Set<WorkerId>();

  constructor(
    private readonly backend: OverlayBackend,
    private readonly announce: Announcer,
    /** See KEPT_LOG_BYTES. */
    private readonly keptLogBytes = KEPT_LOG_BYTES,
  ) {}

  async open(workdir: string, mount: OverlayMount): Promise<string> {
    const overlay = await this.backend.overlays.open(workdir, mount);
    if (!this.overlays.has(overlay.location)) this.overlays.set(overlay.location, Promise.resolve(overlay));
    return overlay.location;
  }

  list(workdir: string): Promise<OverlayMount[]> {
    return this.backend.overlays.list(workdir);
  }

  async contentFiles(location: string) {
    return (await this.overlay(location)).contentFiles();
  }

  async readContent(location: string, path: string): Promise<Uint8Array> {
    return (await this.overlay(location)).readContent(path);
  }

  async tombstones(location: string): Promise<string[]> {
    return (await this.overlay(location)).tombstones();
  }

  async logs(location: string): Promise<string[]> {
    return (await this.overlay(location)).logs();
  }

  async writeContent(worker: WorkerId, location: string, path: string, bytes: Uint8Array): Promise<void> {
    const overlay = await this.overlay(location);
    await this.inTurn(location, () => overlay.writeContent(path, bytes));
    this.announce.change(worker, location, { kind: 'written', path, size: bytes.length });
  }

  async deleteContent(worker: WorkerId, location: string, path: string): Promise<void> {
    const overlay = await this.overlay(location);
    await this.inTurn(location, () => overlay.deleteContent(path));
    this.announce.change(worker, location, { kind: 'deleted', path });
  }

  /**
   * Waits until no other worker holds the overlay's content, then holds it: a worker's
   * If-Match is checked and its file written, or a save reads the files, while the others'
   * writes wait. What they wrote before was told to this worker before its hold is granted.
   */
  async holdContent(worker: WorkerId, location: string): Promise<number> {
    await this.overlay(location);
    const hold = this.nextHandle++;
    let turn = this.contentHolds.get(location);
    if (!turn) this.contentHolds.set(location, (turn = new Turn()));
    this.contentHolders.set(hold, { worker, location });
    await turn.take(hold);
    if (this.departed.has(worker)) {
      this.letGoContent(hold);
      throw new OverlayError('the worker is gone');
    }
    return hold;
  }

  async releaseContent(worker: WorkerId, hold: number): Promise<void> {
    if (this.contentHolders.get(hold)?.worker !== worker) throw new OverlayError('no such hold of an overlay\'s content');
    this.letGoContent(hold);
  }

  private letGoContent(hold: number): void {
    const held = this.contentHolders.get(hold);
    if (!held) return;
    this.contentHolders.delete(hold);
    const turn = this.contentHolds.get(held.location)!;
    turn.unqueue(hold, new OverlayError('the worker is gone'));
    turn.letGo(hold);
    if (turn.idle) this.contentHolds.delete(held.location);
  }

  /** What is durable of the log: an append in progress is not read half-way. */
  async readLog(location: string, dataset: string): Promise<Uint8Array> {
    const bytes = await (await this.overlay(location)).readLog(dataset);
    const open = this.openLogs.get(logKey(location, dataset));
    return open ? bytes.subarray(0, Math.min(bytes.length, (await open).length)) : bytes;
  }

  /** What is durable of the log past `from`: read as readLog reads it, and the place moved back to the last whole line of what is durable. */
  async readLogFrom(location: string, dataset: string, from: LogPlace): Promise<LogTail> {
    const tail = await (await this.overlay(location)).readLogFrom(dataset, from);
    const open = this.openLogs.get(logKey(location, dataset));
    const start = tail.whole ? LOG_START : from;
    const durable = open ? (await open).length - start.length : tail.bytes.length;
    if (tail.bytes.length <= durable) return tail;
    const bytes = tail.bytes.subarray(0, Math.max(0, durable));
    // The store's mark names the end of what it read, not of what is kept: the next read is whole.
    return { bytes, whole: tail.whole, place: placeAfter({ length: start.length, check: start.check }, bytes) };
  }

  /** A worker opens a log at the length it read: the store opens it once, at the first worker's. */
  async openLog(worker: WorkerId, location: string, dataset: string, length: number): Promise<number> {
    const key = logKey(location, dataset);
    let opening = this.openLogs.get(key);
    if (!opening) {
      opening = this.overlay(location).then(async (overlay) => new SharedLog(await overlay.openLog(dataset, length), length, this.keptLogBytes));
      this.openLogs.set(key, opening);
      opening.catch(() => this.openLogs.delete(key));
    }
    const log = await opening;
    // A worker that died while its log was opening holds nothing.
    if (this.departed.has(worker)) throw new OverlayError('the worker is gone');
    if (length < log.base || length > log.length) throw new OverlayError(`the log of ${dataset} in ${location} was read at ${length} bytes, which is not a place where an operation ends (${log.base} to ${log.length} are)`);
    const handle = this.nextHandle++;
    this.handles.set(handle, { worker, key, dataset, location, cursor: length, advancing: Promise.resolve() });
    return handle;
  }

  /** Waits for the log's hold, then hands over what others appended past the handle's position. */
  async hold(worker: WorkerId, handle: number): Promise<Uint8Array> {
    const { open, log } = await this.handleOf(worker, handle);
    await log.take(handle);
    if (!this.handles.has(handle)) {
      log.letGo(handle);
      throw new OverlayError('the log was closed while waiting for its turn');
    }
    return this.advance(open, log);
  }

  /** Appends what the holder decided, durably, lets go, and tells the other workers. */
  async commit(worker: WorkerId, handle: number, bytes: Uint8Array): Promise<void> {
    const { open, log } = await this.handleOf(worker, handle);
    if (log.holder !== handle) throw new OverlayError('an append was sent without the log\'s hold');
    if (bytes.length === 0) return log.letGo(handle);
    const appending = log.log.append(() => bytes);
    log.committing = appending.then(
      () => undefined,
      () => undefined,
    );
    try {
      await appending;
      log.added(bytes);
      open.cursor = log.length;
      this.trim(open.key, log);
      this.announce.change(worker, open.location, { kind: 'data', dataset: open.dataset });
    } finally {
      log.committing = undefined;
      log.letGo(handle);
    }
  }

  async release(worker: WorkerId, handle: number): Promise<void> {
    const { log } = await this.handleOf(worker, handle);
    log.letGo(handle);
  }

  async catchUp(worker: WorkerId, handle: number): Promise<Uint8Array> {
    const { open, log } = await this.handleOf(worker, handle);
    return this.advance(open, log);
  }

  /** The last worker to close a log closes the store's: opened again, it is read afresh (a torn tail cut). */
  async closeLog(worker: WorkerId, handle: number): Promise<void> {
    const { open, log } = await this.handleOf(worker, handle);
    await this.forget(handle, open, log);
  }

  async revoke(worker: WorkerId, workdir: string, id: string, until: number): Promise<void> {
    await (await this.revocationsOf(workdir)).revoke(id, until);
    this.announce.revoked(worker, workdir, id);
  }

  /** One worker's claim at a time reaches the one store: of two workers' claims of an id, one wins. */
  async claim(worker: WorkerId, workdir: string, id: string, until: number): Promise<boolean> {
    const won = await (await this.revocationsOf(workdir)).claim(id, until);
    if (won) this.announce.revoked(worker, workdir, id);
    return won;
  }

  private revocationsOf(workdir: string): Promise<SessionRevocations> {
    let opening = this.revocations.get(workdir);
    if (!opening) this.revocations.set(workdir, (opening = this.backend.revocations.open(workdir)));
    return opening;
  }

  /** A worker that exited holds nothing: its holds are let go, without appending. */
  async gone(worker: WorkerId): Promise<void> {
    this.departed.add(worker);
    for (const [hold, held] of [...this.contentHolders]) if (held.worker === worker) this.letGoContent(hold);
    for (const [handle, open] of [...this.handles]) {
      const log = this.openLogs.get(open.key);
      if (open.worker === worker && log) await this.forget(handle, open, await log);
    }
  }

  private async forget(handle: number, open: Handle, log: SharedLog): Promise<void> {
    this.handles.delete(handle);
    log.drop(handle);
    if ([...this.handles.values()].some((other) => other.key === open.key)) return;
    this.openLogs.delete(open.key);
    await log.committing;
    await log.log.close();
  }

  async close(): Promise<void> {
    const logs = [...this.openLogs.values()];
    this.openLogs.clear();
    this.handles.clear();
    await Promise.all(logs.map((opening) => opening.then((log) => log.log.close()).catch(() => undefined)));
  }

  /** What the log holds past the handle's position, from memory or else from the file, and the handle moved to the end. */
  private advance(open: Handle, log: SharedLog): Promise<Uint8Array> {
    const advancing = open.advancing.then(async () => {
      const end = log.length;
      const news = log.since(open.cursor) ?? (await this.fromFile(open, end));
      // Its own commit may have moved it further meanwhile: those bytes are its own.
      open.cursor = Math.max(open.cursor, end);
      this.trim(open.key, log);
      return news;
    });
    open.advancing = advancing.catch(() => undefined);
    return advancing;
  }

  /**
   * The bytes from the handle's position to `end`, read from the file: the primary is the
   * log's one writer while it holds it open, so what lies before the position is what the
   * worker read there, and there is nothing to check it against.
   */
  private async fromFile(open: Handle, end: number): Promise<Uint8Array> {
    const tail = await (await this.overlay(open.location)).readLogFrom(open.dataset, { length: open.cursor, check: '' });
    if ((tail.whole && open.cursor > 0) || tail.bytes.length < end - open.cursor) {
      throw new OverlayError(`the log of ${open.dataset} in ${open.location} holds less than was appended to it: it was cut or replaced while the reactor ran`);
    }
    return tail.bytes.subarray(0, end - open.cursor);
  }

  /** Lets the log forget what all of its handles have read. */
  private trim(key: string, log: SharedLog): void {
    let oldest = log.length;
    for (const other of this.handles.values()) if (other.key === key) oldest = Math.min(oldest, other.cursor);
    log.trim(oldest);
  }

  /** The bytes of appends kept in memory for the workers, over every open log: bounded, whatever was written. */
  async retainedLogBytes(): Promise<number> {
    const logs = await Promise.all([...this.openLogs.values()].map((opening) => opening.catch(() => undefined)));
    return logs.reduce((sum, log) => sum + (log?.retained ?? 0), 0);
  }

  private async handleOf(worker: WorkerId, handle: number): Promise<{ open: Handle; log: SharedLog }> {
    const open = this.handles.get(handle);
    if (!open || open.worker !== worker) throw new OverlayError('no such open log');
    return { open, log: await this.openLogs.get(open.key)! };
  }

  private overlay(location: string): Promise<PackageOverlay> {
    const overlay = this.overlays.get(location);
    if (!overlay) return Promise.reject(new OverlayError(`no overlay ${location} was opened`));
    return overlay;
  }

  private inTurn<T>(location: string, work: () => Promise<T>): Promise<T> {
    const turn = (this.contentTurns.get(location) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.contentTurns.set(location, turn);
    return turn;
  }
}

function logKey(location: string, dataset: string): string {
  return `${location}\u0000${dataset}`;
}
