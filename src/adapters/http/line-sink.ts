import { writeStdout } from '../shared/stdout-after-failure.js';

/** Writes lines of some kind of item as bytes: at most `limit(item)` of them, from `at`, returning where they end. */
export interface LineEncoder<T> {
  limit(item: T): number;
  encode(item: T, out: Uint8Array, at: number): number;
}

/** What a sink holds at most before it writes: a few hundred access lines. */
const BATCH_BYTES = 64 * 1024;

/**
 * Access-log lines to stdout, written in batches: a write to a pipe is synchronous on
 * Linux, and one per request would cost the static path more than serving it. Each line
 * is copied into the batch's bytes as it comes, so no line string outlives its request:
 * measured, keeping hundreds of them for the next write had the garbage collector move
 * them into the old generation and cost the static path a tenth of its speed. A batch
 * leaves as bytes, copied: turned back into a string, it would be encoded again on its way out.
 */
export class LineSink {
  private batch = Buffer.allocUnsafe(BATCH_BYTES);
  private used = 0;
  private scheduled = false;

  /**
   * @param delayMs how long a line may wait for others; none: until the next turn of the
   *   event loop. Each write is a system call (or, asynchronous, a trip to the thread pool),
   *   so a busy server's sink waits a few milliseconds. Infinity: until the batch is full
   *   or its owner flushes it (a thread that never returns to its event loop).
   * @param lends whether `write` is done with the bytes when it returns (a synchronous
   *   write): it is then handed the batch itself, not a copy.
   */
  constructor(
    private readonly write: (bytes: Buffer) => void = writeStdout,
    private readonly delayMs = 0,
    private readonly lends = false,
  ) {}

  push(line: string): void {
    // A UTF-8 character takes at most three bytes per UTF-16 unit, and the newline one.
    if (!this.fits(3 * line.length + 1)) return this.write(Buffer.from(`${line}\n`));
    this.used += this.batch.write(line, this.used);
    this.ended();
  }

  /** A line of ASCII characters only (a JSON line that escapes the rest): copied byte for byte, which costs less than encoding it. */
  pushAscii(line: string): void {
    if (!this.fits(line.length + 1)) return this.write(Buffer.from(`${line}\n`, 'latin1'));
    this.used += this.batch.write(line, this.used, 'latin1');
    this.ended();
  }

  /** A line its encoder writes straight into the batch: no string for it at all. */
  pushEncoded<T>(encoder: LineEncoder<T>, item: T): void {
    const limit = encoder.limit(item) + 1;
    if (this.fits(limit)) {
      this.used = encoder.encode(item, this.batch, this.used);
      return this.ended();
    }
    const alone = Buffer.allocUnsafe(limit);
    const end = encoder.encode(item, alone, 0);
    alone[end] = 0x0a;
    this.write(alone.subarray(0, end + 1));
  }

  /** Whether a line of at most `bytes` fits in the batch, after writing what it holds if need be; a longer one is written alone. */
  private fits(bytes: number): boolean {
    if (this.used + bytes <= BATCH_BYTES) return true;
    this.flush();
    return bytes <= BATCH_BYTES;
  }

  private ended(): void {
    this.batch[this.used++] = 0x0a;
    if (this.scheduled || this.delayMs === Infinity) return;
    this.scheduled = true;
    if (this.delayMs === 0) setImmediate(() => this.flush());
    else setTimeout(() => this.flush(), this.delayMs).unref();
  }

  flush(): void {
    this.scheduled = false;
    if (this.used === 0) return;
    const bytes = this.lends ? this.batch.subarray(0, this.used) : Buffer.from(this.batch.subarray(0, this.used));
    this.used = 0;
    this.write(bytes);
  }
}
