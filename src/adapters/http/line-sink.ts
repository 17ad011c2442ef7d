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
   */
  constructor(
    private readonly write: (bytes: Buffer) => void = (bytes) => void process.stdout.write(bytes),
    private readonly delayMs = 0,
  ) {}

  push(line: string): void {
    // A UTF-8 character takes at most three bytes per UTF-16 unit, and the newline one.
    if (!this.room(3 * line.length + 1, line)) return;
    this.used += this.batch.write(line, this.used);
    this.ended();
  }

  /** A line of ASCII characters only (a JSON line that escapes the rest): copied byte for byte, which costs less than encoding it. */
  pushAscii(line: string): void {
    if (!this.room(line.length + 1, line)) return;
    this.used += this.batch.write(line, this.used, 'latin1');
    this.ended();
  }

  /** Whether the line fits in the batch, after writing what it holds if need be; a line longer than a batch is written at once, alone. */
  private room(bytes: number, line: string): boolean {
    if (this.used + bytes <= BATCH_BYTES) return true;
    this.flush();
    if (bytes <= BATCH_BYTES) return true;
    this.write(Buffer.from(`${line}\n`));
    return false;
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
    const bytes = Buffer.from(this.batch.subarray(0, this.used));
    this.used = 0;
    this.write(bytes);
  }
}
