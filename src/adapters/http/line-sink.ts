/**
 * Access-log lines to stdout, written in batches: a write to a pipe is synchronous on
 * Linux, and one per request would cost the static path more than serving it.
 */
export class LineSink {
  private pending: string[] = [];
  private scheduled = false;

  /**
   * @param delayMs how long a line may wait for others: none (the next turn of the event
   *   loop) for synchronous writes; a few milliseconds for an asynchronous writer, whose
   *   every write is a trip to the thread pool.
   */
  constructor(
    private readonly write: (text: string) => void = (text) => void process.stdout.write(text),
    private readonly delayMs = 0,
  ) {}

  push(line: string): void {
    this.pending.push(line);
    if (this.pending.length >= 512) return this.flush();
    if (this.scheduled) return;
    this.scheduled = true;
    if (this.delayMs === 0) setImmediate(() => this.flush());
    else setTimeout(() => this.flush(), this.delayMs).unref();
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n') + '\n';
    this.pending = [];
    this.write(text);
  }
}
