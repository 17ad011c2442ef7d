import type { IncomingMessage } from 'node:http';
import { LineSink } from '../line-sink.js';
import { accessLogLine, type AccessEntry } from '../../shared/json-log-line.js';

/** JSON lines wait up to this long for company: measured, one asynchronous write per turn of the event loop cost the static path a quarter of its speed. */
const JSON_BATCH_MS = 20;

/**
 * Access lines on stdout, batched a tick at a time: SPEC.md's text line, or with
 * `--log-format json` one line per request in pino's shape, written through pino's
 * asynchronous destination (loaded on first use; lines before it has loaded wait in order).
 */
export class AccessLog {
  private readonly sink: LineSink | undefined;
  private destination: { write(text: string): void; flushSync?(): void } | undefined;
  private readonly waiting: string[] = [];

  constructor(
    private readonly format: 'text' | 'json',
    quiet: boolean,
    write?: (text: string) => void,
  ) {
    if (quiet) return;
    if (format === 'text') {
      this.sink = new LineSink(write);
      return;
    }
    this.sink = new LineSink((text) => (this.destination ? this.destination.write(text) : void this.waiting.push(text)), JSON_BATCH_MS);
    // A test's writer gets the lines as written.
    if (write) this.ready({ write });
    else
      this.openDestination().then(
        (destination) => this.ready(destination),
        (error: unknown) => {
          // Without pino the lines are not lost: they go to stdout directly.
          process.stderr.write(`reactor: JSON logging falls back to plain writes: ${(error as Error).message}\n`);
          this.ready({ write: (text) => void process.stdout.write(text) });
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
    if (this.format === 'json') this.sink?.push(accessLogLine(id, entry));
  }

  flush(): void {
    this.sink?.flush();
    try {
      this.destination?.flushSync?.();
    } catch {
      // A full pipe (EAGAIN): the asynchronous writer still has the lines.
    }
  }

  private ready(destination: { write(text: string): void; flushSync?(): void }): void {
    this.destination = destination;
    for (const text of this.waiting.splice(0)) destination.write(text);
  }

  private async openDestination(): Promise<{ write(text: string): void; flushSync(): void }> {
    // pino is CommonJS: bundled, its function is the module's default export.
    const module = await import('pino');
    const pino = (module as unknown as { default?: typeof module.pino }).default ?? module.pino;
    return pino.destination({ dest: 1, sync: false });
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
