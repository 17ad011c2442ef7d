/**
 * Access-log lines to stdout, written in batches: a write to a pipe is synchronous on
 * Linux, and one per request would cost the static path more than serving it.
 */
export class LineSink {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly write: (text: string) => void = (text) => void process.stdout.write(text)) {}

  push(line: string): void {
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n') + '\n';
    this.pending = [];
    this.write(text);
  }
}
