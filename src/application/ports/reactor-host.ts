import type { DecryptionKeys } from './envelope-crypto.js';
import type { TrustFile } from './signature-scheme.js';
import type { VerifyMode } from '../../domain/serving/verify-mode.js';

export interface MountRequest {
  /** Explicit mount point; positional sources get theirs from their order and name. */
  prefix?: string;
  source: string;
  /** This mount's package store (a mounts file may name one per mount); the reactor's otherwise. */
  store?: string;
  /** `false` locks this mount read-only. */
  writable?: boolean;
  /** Origins whose pages may write to this mount, besides the reactor's. */
  cors?: string[];
  /** When this mount's package is verified; the reactor's `verify` otherwise. */
  verify?: VerifyMode;
}

export interface ReactorSettings {
  port: number;
  host: string;
  cacheControl: string;
  /** Overlays and saved packages go here; without one, the host makes a temporary directory. */
  workdir?: string;
  /** `postgres://...`: overlays and logouts live in this database, shared with other reactors (`--overlay`, `PKG_OVERLAY`). */
  overlay?: string;
  store?: string;
  registry?: string;
  deploy?: string;
  constraint?: string;
  /** Largest write body in bytes (413 beyond); DEFAULT_BODY_LIMIT unless set. */
  bodyLimit?: number;
  /** Keys for encrypted packages. */
  keys?: DecryptionKeys;
  /** Every mount read-only (`--read-only`), whatever its package says. */
  readOnly?: boolean;
  /** Directory sources are loaded again when their files change (`--watch`). */
  watch?: boolean;
  /** With `watch`, HTML answers carry a script that reloads the page after each reload (`--live-reload`). */
  liveReload?: boolean;
  /** Origins whose pages may write to every mount (`--cors`), with CORS answers for them; other sites' writes are refused. */
  cors?: string[];
  /** Signers every served package must be signed by (`--trust`, `PKG_TRUST`); none means any intact package is served. */
  trust?: readonly TrustFile[];
  /** `/metrics` answers without authentication (`--metrics-public`). */
  metricsPublic?: boolean;
  /** Access lines as text (SPEC.md's line) or as JSON objects (`--log-format json`). */
  logFormat?: 'text' | 'json';
  /** No access lines on stdout (`--quiet`); the ring of `/package/<name>/logs` keeps them. */
  quiet?: boolean;
  /** The client address of a log line comes from `X-Forwarded-For`, and the scheme browsers use (without baseUrl) from `X-Forwarded-Proto`, or both from `Forwarded` without them (`--trust-proxy`). */
  trustProxy?: boolean;
  /** When packages are checked against security.json (`--verify`): before serving (`eager`, the default) or file by file as read, and whole in the background (`lazy`). */
  verify?: VerifyMode;
  /** How long a stop waits for requests in flight before it closes their connections, in ms. */
  shutdownTimeout?: number;
  /** Processes that serve behind the one port (`--workers`); 1, or none, is this process alone. */
  workers?: number;
}

export interface MountFailure {
  source: string;
  error: unknown;
  /** What `/readyz` may name: the mount path asked for, else the source's place among those given (1-based), never a server path. */
  label: string;
}

export interface MountedPackage {
  prefix: string;
  source: string;
  name: string;
  version: string;
}

export interface RunningReactor {
  /** `http://host:port` the reactor listens on. */
  url: string;
  port: number;
  workdir: string;
  /** Whether the workdir was made for this run (and is removed by stop). */
  temporaryWorkdir: boolean;
  mounts: MountedPackage[];
  failures: MountFailure[];
  /** The store writes are kept in when other reactors share it, credentials left out. */
  sharedOverlay?: string;
  /** How many processes answer on the port, when more than one (`--workers`). */
  workers?: number;
  /** Things the operator should know that did not stop a mount (a torn overlay log line). */
  warnings: string[];
  /** Stops listening, closes every mount and removes the reactor's temporary files. */
  stop(): Promise<void>;
  /**
   * Set in a worker process of a reactor that runs as several (`--workers`): resolves when
   * its primary says stop (or is gone). The primary speaks for the reactor and hears the
   * signals; a worker says nothing at start and waits for this.
   */
  stopRequested?: Promise<void>;
}

/** Starts a reactor over HTTP: the CLI's serve command and package tests both use it. */
export interface ReactorHost {
  start(requests: MountRequest[], settings: ReactorSettings, options?: { quiet?: boolean; warn?: (warning: string) => void }): Promise<RunningReactor>;
}
