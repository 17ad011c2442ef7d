import type { IncomingMessage } from 'node:http';
import { LineSink } from '../line-sink.js';
import { accessLogLine, type AccessEntry } from '../../shared/json-log-line.js';

/** JSON lines wait up to this long for company: measured, one asynchronous write per turn of the event loop cost the static path a quarter of its speed. */
const JSON_BATCH_MS = 20;

interface Destination {
  write(bytes: Buffer): void;
  flushSync?(): void;
}

/**
 * Access lines on stdout, batched a tick at a time: SPEC.md's text line, or with
 * `--log-format json` one line per request in pino's shape, written through pino's
 * asynchronous destination (loaded on first use; lines before it has loaded wait in order).
 */
export class AccessLog {
  private readonly sink: LineSink | undefined;
  private destination: Destination | undefined;
  private readonly waiting: Buffer[] = [];

  constructor(
    private readonly format: 'text' | 'json',
    quiet: boolean,
    write?: (text: string) => void,
  ) {
    if (quiet) return;
    // A test's writer gets the lines as text, as written.
    const test = write && { write: (bytes: Buffer) => write(bytes.toString()) };
    if (format === 'text') {
      this.sink = new LineSink(test?.write);
      return;
    }
    this.sink = new LineSink((bytes) => (this.destination ? this.destination.write(bytes) : void this.waiting.push(bytes)), JSON_BATCH_MS);
    if (test) this.ready(test);
    else
      this.openDestination().then(
        (destination) => this.ready(destination),
        (error: unknown) => {
          // Without pino the lines are not lost: they go to stdout directly.
          process.stderr.write(`reactor: JSON logging falls back to plain writes: ${(error as Error).message}\n`);
          this.ready({ write: (bytes) => void process.stdout.write(bytes) });
        },
      );
  }

  /** Whether lines carry request ids (JSON lines do, and so does each answer's `X-Request-Id`). */
  get withIds(): boolean {
    return this.format === 'json' && this.sink !== undefined;
  }

  text(line: string): void {
    if (this.format === 'text') this.sink?.push(line);
  }

  entry(id: string, entry: AccessEntry): void {
    if (this.format === 'json') this.sink?.pushAscii(accessLogLine(id, entry));
  }

  flush(): void {
    this.sink?.flush();
    try {
      this.destination?.flushSync?.();
    } catch {
      // A full pipe (EAGAIN): the asynchronous writer still has the lines.
    }
  }

  private ready(destination: Destination): void {
    this.destination = destination;
    for (const text of this.waiting.splice(0)) destination.write(text);
  }

  private async openDestination(): Promise<Required<Destination>> {
    // pino is CommonJS: bundled, its function is the module's default export.
    const module = await import('pino');
    const pino = (module as unknown as { default?: typeof module.pino }).default ?? module.pino;
    // Batches are handed over as bytes: in its default text mode the destination would encode them again.
    return pino.destination({ dest: 1, sync: false, contentMode: 'buffer' }) as unknown as Required<Destination>;
  }
}

/** The client of a request: the socket's peer, or with `--trust-proxy` the first address `X-Forwarded-For` names. */
export function clientOf(request: IncomingMessage, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = request.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return request.socket.remoteAddress;
}
