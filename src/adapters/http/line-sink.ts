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
   * @param delayMs how long a line may wait for others: none (the next turn of the event
   *   loop) for synchronous writes; a few milliseconds for an asynchronous writer, whose
   *   every write is a trip to the thread pool.
   */
  constructor(
    private readonly write: (bytes: Buffer) => void = (bytes) => void process.stdout.write(bytes),
    private readonly delayMs = 0,
  ) {}

  push(line: string): void {
    // A UTF-8 character takes at most three bytes per UTF-16 unit, and the newline one.
    if (this.used + 3 * line.length + 1 > BATCH_BYTES) {
      this.flush();
      if (3 * line.length + 1 > BATCH_BYTES) return this.write(Buffer.from(line + '\n'));
    }
    this.used += this.batch.write(line, this.used);
    this.batch[this.used++] = 0x0a;
    if (this.scheduled) return;
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
