import type { Cluster, Worker } from 'node:cluster';
import { UsageError, WorkerError } from '../../domain/errors.js';
import type { OverlayBackend } from '../../application/ports/overlay-store.js';
import type { SentError, WorkerSummary } from './channel.js';
import { PrimaryLink, type DepartedFolds } from './primary-link.js';
import { workerChannel } from './process-channels.js';
import { nodeModule } from '../shared/node-module.js';

/** The environment that makes a `pkg reactor serve` a worker of its primary, and tells it where. */
/** `started`: when the reactor started, in ms since the epoch, which a worker started again reports its uptime from. */
export const WORKER_ENV = { role: 'PKG_REACTOR_WORKER', workdir: 'PKG_REACTOR_WORKDIR', started: 'PKG_REACTOR_STARTED' } as const;

/** A worker that dies before it listens is started again after this long, not in a tight loop. */
const RESTART_DELAY_MS = 1000;
/** Beyond the shutdown timeout, how long a stop waits for workers before it kills them. */
const EXIT_GRACE_MS = 5000;

export interface PoolOptions {
  count: number;
  workdir: string;
  /** The files the primary writes for the workers; none when they share a database. */
  backend: OverlayBackend | undefined;
  shutdownTimeout: number;
  warn: (warning: string) => void;
  /** How the counts of workers that are gone stay in the reactor's. */
  folds?: DepartedFolds;
}

/**
 * The primary's worker processes (node:cluster): each re-runs the same serve command and
 * listens on the shared port. One that dies unexpectedly is started again; a stop asks
 * every worker to stop and waits for them (killing what is left after the shutdown timeout).
 */
export class WorkerPool {
  private readonly link: PrimaryLink;
  private readonly live = new Map<number, Worker>();
  private readonly listening = new Set<number>();
  private stopping = false;
  private readonly started = Date.now();
  private starting: { resolve: (summary: WorkerSummary) => void; reject: (error: Error) => void; summary?: WorkerSummary } | undefined;

  constructor(private readonly options: PoolOptions) {
    this.link = new PrimaryLink(options.backend, { ready: (worker, summary) => this.ready(worker, summary), failed: (_worker, error) => this.failed(error) }, options.folds);
  }

  /** Forks the workers; resolves with the first one's summary once every one listens. */
  start(): Promise<WorkerSummary> {
    // Bytes cross as bytes (structured clone), not as JSON arrays of numbers.
    nodeModule<Cluster>('node:cluster').setupPrimary({ serialization: 'advanced' });
    const started = new Promise<WorkerSummary>((resolve, reject) => (this.starting = { resolve, reject }));
    for (let i = 0; i < this.options.count; i++) this.fork();
    return started;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.link.stopAll();
    const exits = [...this.live.values()].map((worker) => new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve()))));
    const late = setTimeout(() => {
      for (const worker of this.live.values()) worker.process.kill('SIGKILL');
    }, this.options.shutdownTimeout + EXIT_GRACE_MS);
    await Promise.all(exits);
    clearTimeout(late);
    await this.link.close();
  }

  private fork(): void {
    // The same serve command, so the same port: node:cluster shares one listening handle per
    // address and port as given (port 0 too), which a worker started again joins.
    const worker = nodeModule<Cluster>('node:cluster').fork({ [WORKER_ENV.role]: '1', [WORKER_ENV.workdir]: this.options.workdir, [WORKER_ENV.started]: String(this.started) });
    this.live.set(worker.id, worker);
    this.link.attach(worker.id, workerChannel(worker));
    worker.once('exit', (code, signal) => this.exited(worker, code, signal));
  }

  private ready(worker: number, summary: WorkerSummary): void {
    this.listening.add(worker);
    // A worker still loading when the stop came did not hear it.
    if (this.stopping) return this.link.stop(worker);
    const starting = this.starting;
    if (!starting) return;
    starting.summary ??= summary;
    if (this.listening.size >= this.options.count) {
      this.starting = undefined;
      starting.resolve(starting.summary);
    }
  }

  private failed(error: SentError): void {
    const failure = error.name === 'UsageError' ? new UsageError(error.message) : new WorkerError(`a worker process could not start: ${error.name}: ${error.message}`);
    if (this.starting) return this.startFailed(failure);
    if (!this.stopping) this.options.warn(`${failure.message}; starting another in ${RESTART_DELAY_MS / 1000} s`);
  }

  /** The reactor does not start: the other workers are stopped, not started again, and say nothing more. */
  private startFailed(failure: Error): void {
    const { reject } = this.starting!;
    this.starting = undefined;
    this.stopping = true;
    reject(failure);
  }

  private exited(worker: Worker, code: number | null, signal: string | null): void {
    this.live.delete(worker.id);
    const listened = this.listening.delete(worker.id);
    if (this.stopping) return;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (this.starting) return this.startFailed(new WorkerError(`a worker process (pid ${worker.process.pid}) ${how} before it listened`));
    if (listened) this.options.warn(`worker process ${worker.process.pid} ${how}; starting another`);
    setTimeout(() => this.stopping || this.fork(), listened ? 0 : RESTART_DELAY_MS);
  }
}
