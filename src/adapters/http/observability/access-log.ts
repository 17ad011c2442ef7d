import type { IncomingMessage } from 'node:http';
import { LineSink } from '../line-sink.js';

/** What a JSON access line holds besides the time and the request id. */
export interface AccessEntry {
  method: string;
  path: string;
  status: number;
  /** Milliseconds from the request to its answer being written. */
  ms: number;
  client: string | undefined;
  mount: string;
  bytes: number;
}

interface JsonLogger {
  info(entry: object): void;
  flush(): void;
}

/**
 * Access lines on stdout: SPEC.md's text line (batched), or with `--log-format json` one
 * pino object per request (pino's asynchronous destination, loaded on first use; lines
 * that come before it has loaded wait in order).
 */
export class AccessLog {
  private readonly sink: LineSink | undefined;
  private json: JsonLogger | undefined;
  private loading: Promise<void> | undefined;
  private readonly waiting: object[] = [];

  constructor(
    private readonly format: 'text' | 'json',
    quiet: boolean,
    write?: (text: string) => void,
  ) {
    this.sink = quiet ? undefined : format === 'text' ? new LineSink(write) : undefined;
    if (!quiet && format === 'json')
      this.loading = this.load(write).catch((error: unknown) => {
        // Without pino, the lines are not lost: they go out as JSON text, one per line.
        process.stderr.write(`reactor: JSON logging falls back to plain writes: ${(error as Error).message}\n`);
        const out = write ?? ((text: string) => void process.stdout.write(text));
        this.json = { info: (entry) => out(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`), flush: () => undefined };
        for (const line of this.waiting.splice(0)) this.json.info(line);
      });
  }

  /** Whether lines carry request ids (JSON lines do, and so does each answer's `X-Request-Id`). */
  get withIds(): boolean {
    return this.format === 'json' && this.loading !== undefined;
  }

  text(line: string): void {
    this.sink?.push(line);
  }

  entry(id: string, entry: AccessEntry): void {
    if (!this.loading) return;
    const line = { reqId: id, ...entry, msg: 'request' };
    if (this.json) this.json.info(line);
    else this.waiting.push(line);
  }

  flush(): void {
    this.sink?.flush();
    this.json?.flush();
  }

  private async load(write: ((text: string) => void) | undefined): Promise<void> {
    // pino is CommonJS: bundled, its function is the module's default export.
    const module = await import('pino');
    const pino = (module as unknown as { default?: typeof module.pino }).default ?? module.pino;
    // A test's writer gets the lines as written; stdout gets pino's asynchronous destination.
    const destination = write ? { write: (text: string) => void write(text) } : pino.destination({ dest: 1, sync: false });
    const logger = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination);
    this.json = { info: (entry) => logger.info(entry), flush: () => logger.flush() };
    for (const line of this.waiting.splice(0)) this.json.info(line);
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
