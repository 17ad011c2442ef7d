import { availableParallelism } from 'node:os';
import type * as WorkerThreads from 'node:worker_threads';
import type { PasswordHashes } from '../../application/ports/password-hashes.js';
import { builtEntry } from '../shared/built-entry.js';
import { nodeModule } from '../shared/node-module.js';

/** What the worker entry is asked: one PasswordHashes call. */
export type PasswordTask = { op: 'verify'; password: string; hash: string } | { op: 'decoyLike'; like: string };
/** And what it answers. */
export type PasswordAnswer = { value: boolean | string } | { error: string };

interface Queued {
  task: PasswordTask;
  resolve(value: boolean | string): void;
  reject(error: Error): void;
}

/**
 * Password checks on worker threads. The hashes htpasswd writes are meant to be slow, and
 * in JavaScript they run on whatever thread calls them: on the reactor's event loop, 32
 * guesses at a bcrypt password held every other answer, a static file on another mount
 * included, for seconds. Here they take turns on a few threads (one per core but the one
 * the event loop keeps, at most four), first come first served, and the event loop only
 * waits for the answer. Without the built worker entry (tests run from source) the
 * fallback checks in process.
 */
export class WorkerThreadPasswordHashes implements PasswordHashes {
  private readonly workerFile: string | undefined;
  private readonly workers = new Set<WorkerThreads.Worker>();
  private readonly idle: WorkerThreads.Worker[] = [];
  private readonly running = new Map<WorkerThreads.Worker, Queued>();
  private readonly queue: Queued[] = [];

  constructor(
    private readonly fallback: PasswordHashes,
    /** The worker entry (the composition root's `password-worker`). */
    workerUrl: URL,
    private readonly threads = Math.max(1, Math.min(4, availableParallelism() - 1)),
  ) {
    this.workerFile = builtEntry(workerUrl);
  }

  verify(password: string, hash: string): Promise<boolean> {
    if (!this.workerFile) return this.fallback.verify(password, hash);
    return this.run({ op: 'verify', password, hash }) as Promise<boolean>;
  }

  decoyLike(like: string): Promise<string> {
    if (!this.workerFile) return this.fallback.decoyLike(like);
    return this.run({ op: 'decoyLike', like }) as Promise<string>;
  }

  private run(task: PasswordTask): Promise<boolean | string> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.workers.size < this.threads ? this.start() : undefined);
      if (!worker) return;
      const next = this.queue.shift()!;
      this.running.set(worker, next);
      worker.postMessage(next.task);
    }
  }

  private start(): WorkerThreads.Worker {
    // No inherited flags: an --inspect or --cpu-prof meant for the reactor is not the thread's.
    const { Worker } = nodeModule<typeof WorkerThreads>('node:worker_threads');
    const worker = new Worker(this.workerFile!, { execArgv: [] });
    this.workers.add(worker);
    worker.on('message', (answer: PasswordAnswer) => {
      const done = this.running.get(worker);
      this.running.delete(worker);
      this.idle.push(worker);
      if ('error' in answer) done?.reject(new Error(answer.error));
      else done?.resolve(answer.value);
      this.dispatch();
    });
    let gone = false;
    const lost = (error: Error) => {
      if (gone) return;
      gone = true;
      this.workers.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      this.running.get(worker)?.reject(error);
      this.running.delete(worker);
      // A thread that failed is replaced when the next check needs one.
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the password check thread stopped (exit code ${code})`)));
    // The reactor's server keeps the process alive; a thread waiting for work must not.
    // (After the listeners: listening for messages refs the thread again.)
    worker.unref();
    return worker;
  }
}
