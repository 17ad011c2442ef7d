import type { IncomingMessage } from 'node:http';
import type * as WorkerThreads from 'node:worker_threads';
import { LineSink } from '../line-sink.js';
import { nearestHop } from '../proxy-headers.js';
import { builtEntry } from '../../shared/built-entry.js';
import { nodeModule } from '../../shared/node-module.js';
import { accessLogLine, type AccessEntry } from '../../shared/json-log-line.js';
import { stdoutFailed, writeStdout } from '../../shared/stdout-after-failure.js';
import { AccessRecordRing } from './access-record-ring.js';
import { UnwrittenLines } from './unwritten-lines.js';

/**
 * Lines wait up to this long for company. Measured on the static path: one asynchronous
 * write per turn of the event loop cost JSON lines a quarter of its speed, and one
 * synchronous write per turn cost text lines 1.5 us of the server's 22 us of CPU per
 * request (22.1 -> 20.5 us, median of 4 taking turns).
 */
const BATCH_MS = 20;

/** How long a stop waits for the writer thread to write out the lines of the last requests. */
const FLUSH_MS = 2000;

/** What the writer thread is started with: the ring's memory, the prefix of request ids, where to write (stdout). */
export interface AccessLogWorkerData {
  data: SharedArrayBuffer;
  control: SharedArrayBuffer;
  idPrefix: string;
  fd: number;
}

interface Destination {
  write(bytes: Buffer): void;
  flushSync?(): void;
}

/** pino's asynchronous destination (sonic-boom), as used here. */
interface AsyncDestination extends Required<Destination> {
  on(event: 'write', listener: (bytes: number) => void): void;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): void;
  destroy(): void;
}

/**
 * Access lines on stdout: SPEC.md's text line, batched for BATCH_MS; or with
 * `--log-format json` one line per request in pino's shape. JSON lines are built and
 * written by a thread of their own (`writerThread`, the composition root's
 * `access-log-worker`): the event loop only copies each request's facts into a ring of
 * shared memory (see AccessRecordRing). Measured on the static path, building the line
 * there cost about a seventh of a request. Without that thread (run from source, a test's
 * writer, or a thread that failed) they are built here and written through pino's
 * asynchronous destination (loaded on first use; lines before it has loaded wait in order).
 */
export class AccessLog {
  /** Request ids: this process's prefix and a count. */
  readonly idPrefix = `${process.pid.toString(36)}-${Date.now().toString(36)}-`;
  private readonly sink: LineSink | undefined;
  private ring: AccessRecordRing | undefined;
  private writer: WorkerThreads.Worker | undefined;
  private destination: Destination | undefined;
  private readonly waiting: Buffer[] = [];

  constructor(
    private readonly format: 'text' | 'json',
    quiet: boolean,
    write?: (text: string) => void,
    writerThread?: URL,
  ) {
    if (quiet) return;
    // A test's writer gets the lines as text, as written.
    const test = write && { write: (bytes: Buffer) => write(bytes.toString()) };
    if (format === 'text') {
      this.sink = new LineSink(test?.write, BATCH_MS);
      return;
    }
    this.sink = new LineSink((bytes) => (this.destination ? this.destination.write(bytes) : void this.waiting.push(bytes)), BATCH_MS);
    if (test) this.ready(test);
    else {
      const file = writerThread && builtEntry(writerThread);
      if (file) this.startWriter(file);
      else this.writeHere();
    }
  }

  /** Whether lines carry request ids (JSON lines do, and so does each answer's `X-Request-Id`). */
  get withIds(): boolean {
    return this.format === 'json' && this.sink !== undefined;
  }

  text(line: string): void {
    if (this.format === 'text') this.sink?.push(line);
  }

  /** The JSON line of request number `count`, answered at `time`. */
  entry(count: number, time: number, entry: AccessEntry): void {
    if (this.format !== 'json') return;
    if (this.ring) this.ring.put(count, time, entry);
    else this.lineHere(count, time, entry);
  }

  private flush(): void {
    if (this.ring && !this.ring.flush(FLUSH_MS)) process.stderr.write('reactor: the JSON access-log thread did not write out its last lines in time\n');
    this.sink?.flush();
    try {
      this.destination?.flushSync?.();
    } catch {
      // A full pipe (EAGAIN): the asynchronous writer still has the lines.
    }
  }

  /** After a last flush: the writer thread ends, and no late line is handed to it. */
  async close(): Promise<void> {
    this.flush();
    const writer = this.writer;
    this.ring = undefined;
    this.writer = undefined;
    await writer?.terminate();
  }

  private startWriter(file: string): void {
    const ring = AccessRecordRing.create();
    // No inherited flags: an --inspect or --cpu-prof meant for the reactor is not the thread's.
    const { Worker } = nodeModule<typeof WorkerThreads>('node:worker_threads');
    const writer = new Worker(file, { workerData: { data: ring.data, control: ring.control, idPrefix: this.idPrefix, fd: 1 } satisfies AccessLogWorkerData, execArgv: [] });
    // It never keeps the process alive: a stop flushes it first.
    writer.unref();
    writer.once('error', (error) => {
      // Lines are not lost: what the thread had not taken is built here, and so is what follows.
      process.stderr.write(`reactor: the JSON access-log thread failed (${error.message}); lines are written from the event loop\n`);
      this.ring = undefined;
      this.writer = undefined;
      ring.take((record) => this.lineHere(record.count, record.time, record));
      this.writeHere();
    });
    this.ring = ring;
    this.writer = writer;
  }

  private lineHere(count: number, time: number, entry: AccessEntry): void {
    this.sink?.pushAscii(accessLogLine(this.idPrefix + count, entry, time));
  }

  /** JSON lines built on the event loop, batched, through pino's asynchronous destination. */
  private writeHere(): void {
    this.openDestination().then(
      (destination) => this.ready(destination),
      (error: unknown) => {
        // Without pino the lines are not lost: they go to stdout directly.
        process.stderr.write(`reactor: JSON logging falls back to plain writes: ${(error as Error).message}\n`);
        this.ready({ write: (bytes) => void process.stdout.write(bytes) });
      },
    );
  }

  private ready(destination: Destination): void {
    this.destination = destination;
    for (const text of this.waiting.splice(0)) destination.write(text);
  }

  private async openDestination(): Promise<Destination> {
    // pino is CommonJS: bundled, its function is the module's default export.
    const module = await import('pino');
    const pino = (module as unknown as { default?: typeof module.pino }).default ?? module.pino;
    // Batches are handed over as bytes: in its default text mode the destination would encode them again.
    return untilItFails(pino.destination({ dest: 1, sync: false, contentMode: 'buffer' }) as unknown as AsyncDestination);
  }
}

/**
 * pino's asynchronous destination on stdout until a write fails. pino lets a closed pipe
 * pass and throws anything else (a full disk) from the write's callback, which left the
 * reactor answering nothing, deaf to SIGTERM. Once failed it is let go: its unwritten lines
 * and those that follow go the way of every stdout write after a failure (StdoutAfterFailure:
 * dropped, said once on stderr, written again once there is room; quietly for good on EPIPE).
 */
function untilItFails(destination: AsyncDestination): Destination {
  const unwritten = new UnwrittenLines();
  let failed = false;
  destination.on('write', (bytes) => unwritten.written(bytes));
  destination.on('error', (error) => {
    // pino's own listener emits the error again: it is met twice.
    if (failed) return;
    failed = true;
    // No longer flushed at exit, where it would try its unwritten lines again.
    destination.destroy();
    stdoutFailed(error, unwritten.dropped());
  });
  return {
    write: (bytes) => {
      if (failed) return writeStdout(bytes);
      unwritten.handed(bytes);
      destination.write(bytes);
    },
    flushSync: () => {
      if (!failed) destination.flushSync();
    },
  };
}

/**
 * The client of a request: the socket's peer, or with `--trust-proxy` the address the
 * proxy nearest the reactor saw (nearestHop: the last of `X-Forwarded-For`, else of
 * `Forwarded`), when that is an IP address. The addresses before it are whatever the client
 * sent: nginx's `$proxy_add_x_forwarded_for` appends to the client's own header, as nginx's
 * realip module reads it too.
 */
export function clientOf(request: IncomingMessage, trustProxy: boolean): string | undefined {
  return (trustProxy ? nearestHop(request).client : undefined) ?? request.socket.remoteAddress;
}
