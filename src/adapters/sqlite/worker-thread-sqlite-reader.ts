import type * as WorkerThreads from 'node:worker_threads';
import type { SqliteReader } from '../../application/ports/sqlite-reader.js';
import { ConfigValidationError } from '../../domain/errors.js';
import { builtEntry } from '../shared/built-entry.js';
import { nodeModule } from '../shared/node-module.js';
import { errorOf, type SqliteAnswer, type SqliteTask } from './sqlite-answers.js';

/** Past this a table's read is given up: a 128 MiB table of tiny rows, the most a dataset may hold, reads in about 30 s. */
export const SQLITE_READ_DEADLINE_MS = 120_000;

/**
 * SQLite tables read on a worker thread. A view is a query the package's author wrote,
 * and sql.js runs it to its end with no way to interrupt it (it has no progress handler):
 * one that counts an endless recursive CTE held the event loop for ever, so the reactor
 * neither served nor stopped on SIGINT or SIGTERM, and validate never returned. On a
 * thread the event loop stays free, and a read past the deadline ends the thread. Reads
 * take turns on one thread. Without the built worker entry (tests run from source) the
 * fallback reads in process.
 */
export class WorkerThreadSqliteReader implements SqliteReader {
  private readonly workerFile: string | undefined;
  private worker: WorkerThreads.Worker | undefined;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly fallback: SqliteReader,
    /** The worker entry (the composition root's `sqlite-worker`). */
    workerUrl: URL,
    private readonly deadlineMs = SQLITE_READ_DEADLINE_MS,
  ) {
    this.workerFile = builtEntry(workerUrl);
  }

  readTable(database: Uint8Array, table: string, file: string): Promise<Array<Record<string, unknown>>> {
    if (!this.workerFile) return this.fallback.readTable(database, table, file);
    const read = this.turn.then(() => this.run({ database, table, file }));
    this.turn = read.catch(() => undefined);
    return read;
  }

  private run(task: SqliteTask): Promise<Array<Record<string, unknown>>> {
    const worker = (this.worker ??= this.start());
    return new Promise((resolve, reject) => {
      const settle = (error: Error | undefined, answer?: SqliteAnswer) => {
        clearTimeout(timer);
        worker.off('message', answered);
        worker.off('error', lost);
        worker.off('exit', exited);
        worker.unref();
        if (error) reject(error);
        else if ('failure' in answer!) reject(errorOf(answer.failure));
        else resolve(answer!.rows);
      };
      const answered = (answer: SqliteAnswer) => settle(undefined, answer);
      const lost = (error: Error) => {
        this.forget(worker);
        settle(error);
      };
      const exited = (code: number) => lost(new Error(`the SQLite reading thread stopped (exit code ${code})`));
      const timer = setTimeout(() => {
        this.forget(worker);
        void worker.terminate();
        settle(new ConfigValidationError(task.file, [`reading table "${task.table}" took longer than ${this.deadlineMs / 1000} s and was given up (is it a view whose query never ends?)`]));
      }, this.deadlineMs);
      worker.on('message', answered);
      worker.on('error', lost);
      worker.on('exit', exited);
      // A read in progress keeps a command alive until it is answered; an idle thread does not.
      worker.ref();
      worker.postMessage(task);
    });
  }

  private start(): WorkerThreads.Worker {
    // No inherited flags: an --inspect or --cpu-prof meant for the reactor is not the thread's.
    const { Worker } = nodeModule<typeof WorkerThreads>('node:worker_threads');
    const worker = new Worker(this.workerFile!, { execArgv: [] });
    // Between reads too: an 'error' with no listener would throw in the reactor.
    worker.on('error', () => this.forget(worker));
    worker.on('exit', () => this.forget(worker));
    worker.unref();
    return worker;
  }

  /** The next read starts a new thread. */
  private forget(worker: WorkerThreads.Worker): void {
    if (this.worker === worker) this.worker = undefined;
  }
}
