import type { LogPlace } from '../../domain/data/log-place.js';
import type { SessionRevocationStore } from './session-revocations.js';

/**
 * One dataset's operation log, which only grows. Where several reactors share one store,
 * each holds its own view of the log and catches up with what the others appended.
 */
export interface AppendLog {
  /**
   * Appends under the log's exclusive hold, so writers elsewhere take turns: `decide` gets
   * the whole lines they appended since this log last looked (always empty where this
   * process is the log's only writer) and returns the bytes to append. Resolves once they
   * are durable; a failed append leaves the log as it was. A store may call `decide` more
   * than once, each time with what was appended elsewhere since its last call; the bytes of
   * its last call are the ones appended.
   */
  append(decide: (appendedElsewhere: Uint8Array) => Uint8Array): Promise<void>;
  /** The whole lines writers elsewhere appended since this log last looked, without the hold: a read catching up. */
  catchUp(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** A read of a log from a place: the bytes after it, or the whole log. */
export interface LogTail {
  bytes: Uint8Array;
  /** The bytes are the whole log: the place read from was not in it any more. */
  whole: boolean;
  /** Where this read ended, for the next. */
  place: LogPlace;
}

export interface OverlayFile {
  /** Path below the overlay's content root: `docs/a.html`. */
  path: string;
  size: number;
}

/** What another reactor sharing the store changed. */
export type OverlayChange =
  | { kind: 'data'; dataset: string }
  | { kind: 'written'; path: string; size: number }
  | { kind: 'deleted'; path: string }
  /** Changes may have been missed (the store was out of reach a while): read everything again. */
  | { kind: 'any' }
  /**
   * Changes are not heard until `heard` resolves (the connection that hears them was lost):
   * the others acknowledge writes meanwhile without waiting for this reactor, so its
   * requests wait for that, or for a bound, rather than answer from before them.
   */
  | { kind: 'unheard'; heard: Promise<void> };

/**
 * What an overlay holds at one content path: a file (its SHA-256, hex), a tombstone, or
 * nothing. A conditional write was decided against it; a store other processes write
 * makes the write only while the path still holds it, so two writes naming one entity tag
 * on two reactors cannot both pass. A store this process alone writes has nothing to
 * check: its writes to a package take turns with the decisions.
 */
export type OverlayEntry = { kind: 'file'; sha256: string } | { kind: 'tombstone' } | { kind: 'none' };

/**
 * Throws when a written path would not fit among the overlay's files (a file where another
 * has a folder, another spelling of one's name). A store other processes write calls it
 * with the files the overlay holds as the write is made, under the lock its content writes
 * take: the writer's own view may not have another reactor's latest yet. A store this
 * process alone writes has nothing more to check than that view.
 */
export type FitsAmong = (overlayFiles: readonly string[]) => void;

/**
 * One package's writable overlay: written content files, the overlay's tombstones and one
 * operation log per dataset. The package itself is never written.
 */
export interface PackageOverlay {
  /** Where it lives, for messages. */
  readonly location: string;
  contentFiles(): Promise<OverlayFile[]>;
  readContent(path: string): Promise<Uint8Array>;
  streamContent(path: string): AsyncIterable<Uint8Array>;
  /**
   * Replaces the file whole and lifts its tombstone: a reader sees the old bytes or the new
   * ones, never a mix. With `expected` (a conditional write), only while the path still
   * holds it: false, and nothing written, when another writer changed it meanwhile.
   */
  writeContent(path: string, bytes: Uint8Array, expected?: OverlayEntry, fits?: FitsAmong): Promise<boolean>;
  /** Tombstones the path and removes its file: after a failure, the path is as it was. `expected` as for writeContent. */
  deleteContent(path: string, expected?: OverlayEntry): Promise<boolean>;
  tombstones(): Promise<string[]>;
  /**
   * Runs `work` while no other process of this reactor changes the overlay's content files
   * or tombstones (a write's If-Match checked and its file written; a save reading the
   * files); what they changed before has been told to `watch` listeners here first. A store
   * only this process writes runs it at once: the caller already takes its writes one at a time.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** The log's bytes, empty when there is none yet. */
  readLog(dataset: string): Promise<Uint8Array>;
  /**
   * What the log holds past `from`, where an earlier read of it ended: a read of the past
   * after a write reads what was appended, not the whole log again. When the log no longer
   * holds what was read up to there (it was written anew), the whole log, and `whole`.
   */
  readLogFrom(dataset: string, from: LogPlace): Promise<LogTail>;
  /** The datasets that have a log here. */
  logs(): Promise<string[]>;
  /**
   * Opens the log for appends, positioned after its first `length` bytes (what was read at
   * load). Bytes past them may only be a torn last line left by a crash, and are cut where
   * this process is the only writer; complete lines there are never cut: OverlayError instead.
   */
  openLog(dataset: string, length: number): Promise<AppendLog>;
  /**
   * Hears what other reactors sharing the store change here, until the returned function
   * is called. A store others write first tells `{kind: 'any'}`: what they changed since
   * the overlay was opened. A store only this process writes has nothing to tell.
   */
  watch(listener: (change: OverlayChange) => void): () => void;
}

/** Which mount an overlay belongs to: one mount path and the package mounted there. */
export interface OverlayMount {
  path: string;
  packageName: string;
  /** What is written there is no other user's to read (the package came encrypted); a store of files keeps its folder to the reactor's user. */
  ownerOnly?: boolean;
}

export interface OverlayStore {
  /** Where the overlays live, credentials left out: for the start line and messages. */
  readonly description: string;
  /** Whether other reactors may share these overlays: sessions and revocations must then be shared too. */
  readonly shared: boolean;
  /**
   * The overlay of one mount of a package, created on first write. In a workdir of an older
   * layout (one overlay per package name), it is adopted by the first mount of that package
   * to open it, never by two.
   */
  open(workdir: string, mount: OverlayMount): Promise<PackageOverlay>;
  /** Whether it answers now: a database that cannot be reached keeps the reactor from being ready. */
  reachable(): Promise<boolean>;
  /** Every overlay the store holds for a workdir: what `pkg reactor overlay copy` moves. */
  list(workdir: string): Promise<OverlayMount[]>;
  close(): Promise<void>;
}

/** Where a reactor keeps its writes and its logouts: both in one place, as `--overlay` names it. */
export interface OverlayBackend {
  overlays: OverlayStore;
  revocations: SessionRevocationStore;
  /** Lets go of connections it opened. */
  close(): Promise<void>;
}

export interface OverlayBackends {
  /**
   * Files in the reactor's workdir without a location; `postgres://user@host:port/db` is a
   * database several reactors share. UsageError for anything else; OverlayError when the
   * database cannot be used.
   */
  open(location: string | undefined): Promise<OverlayBackend>;
}
