import { OverlayError } from '../../domain/errors.js';
import type { OverlayChange } from '../../application/ports/overlay-store.js';
import type { ProcessReport } from '../../application/ports/reactor-processes.js';

/** What the primary does for a worker, by name: the overlay store's calls, a logout, a login state's use, and gathering reports. */
export type PrimaryCall =
  | 'open'
  | 'list'
  | 'contentFiles'
  | 'readContent'
  | 'writeContent'
  | 'deleteContent'
  | 'tombstones'
  | 'holdContent'
  | 'releaseContent'
  | 'readLog'
  | 'readLogFrom'
  | 'logs'
  | 'openLog'
  | 'hold'
  | 'commit'
  | 'release'
  | 'catchUp'
  | 'closeLog'
  | 'revoke'
  | 'claim'
  | 'gather';

/** A typed error as it crosses the channel: its class name and message. */
export interface SentError {
  name: string;
  message: string;
}

/** What a worker says about itself once it listens: enough for the primary's banner. */
export interface WorkerSummary {
  url: string;
  port: number;
  mounts: Array<{ prefix: string; source: string; name: string; version: string }>;
  failures: Array<{ source: string; label: string; error: SentError }>;
  warnings: string[];
  sharedOverlay?: string;
}

export type WorkerMessage =
  | { pkg: 'call'; id: number; call: PrimaryCall; args: unknown[] }
  | { pkg: 'ready'; summary: WorkerSummary }
  | { pkg: 'failed'; error: SentError }
  | { pkg: 'report'; gather: number; value: unknown };

export type PrimaryMessage =
  | { pkg: 'reply'; id: number; value?: unknown; error?: SentError }
  | { pkg: 'change'; location: string; change: OverlayChange }
  | { pkg: 'revoked'; workdir: string; id: string }
  | { pkg: 'gather'; gather: number; report: ProcessReport; argument: number }
  | { pkg: 'stop' };

/**
 * One end of the line between a worker process and its primary. Messages cross as
 * structured clones (node:cluster's `advanced` serialization), so bytes stay bytes.
 */
export interface Channel<Out, In> {
  /** Resolves once the message is handed to the other end (or the line is gone). */
  send(message: Out): Promise<void>;
  /** Every message that arrives; other senders' messages (not ours) are passed over. */
  onMessage(listener: (message: In) => void): void;
  /** The other end is gone: the process exited, or the line was cut. */
  onClose(listener: () => void): void;
  /** Cuts the line from this end. */
  close(): void;
}

export type WorkerChannel = Channel<WorkerMessage, PrimaryMessage>;
export type PrimaryChannel = Channel<PrimaryMessage, WorkerMessage>;

/** Our messages carry `pkg`: node's own (and anything else sent on the line) do not. */
export function isOurs<T>(message: unknown): message is T {
  return typeof message === 'object' && message !== null && typeof (message as { pkg?: unknown }).pkg === 'string';
}

export function sendError(error: unknown): SentError {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}

/**
 * An error from the other process, as this one's: an overlay failure stays an OverlayError
 * (a 500 with its reason, as in one process); any other keeps its name and message.
 */
export function receivedError(sent: SentError): Error {
  if (sent.name === 'OverlayError') return new OverlayError(sent.message);
  return Object.assign(new Error(sent.message), { name: sent.name });
}
