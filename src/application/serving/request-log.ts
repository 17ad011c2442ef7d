/** Lines kept for `/package/<name>/logs`: a small in-memory ring. */
export const LOG_CAPACITY = 1000;

/** The ring's bytes: a thousand lines of 256 bytes; longer lines leave room for fewer. */
const RING_BYTES = LOG_CAPACITY * 256;

/**
 * The reactor-global access log and request metrics. A line is
 * `<utc timestamp> <METHOD> <path> -> <status>`, the same on stdout and in the ring.
 *
 * The ring holds the lines' bytes, not the strings: measured, a thousand line strings kept
 * alive across collections were moved into the old generation and cost the static path
 * an eighth of its speed; a line string now dies young.
 */
export class RequestLog {
  private readonly bytes = Buffer.allocUnsafe(RING_BYTES);
  /** Where each line starts, in bytes ever written (so a line overwritten since is known). */
  private readonly starts = new Float64Array(LOG_CAPACITY);
  private readonly lengths = new Int32Array(LOG_CAPACITY);
  private next = 0;
  /** Bytes ever written, counting the tails skipped where a line did not fit before the end. */
  private written = 0;
  private total = 0;
  private readonly byStatus = new Map<number, number>();
  private stampTime = -1;
  private stamp = '';

  /** Records one answered request at `time` (epoch milliseconds); returns its line. */
  record(method: string, path: string, status: number, time: number): string {
    if (time !== this.stampTime) {
      this.stampTime = time;
      this.stamp = new Date(time).toISOString();
    }
    let line = `${this.stamp} ${method} ${path} -> ${status}`;
    // A UTF-8 character takes at most three bytes per UTF-16 unit.
    if (3 * line.length > RING_BYTES) line = line.slice(0, RING_BYTES / 3);
    let offset = this.written % RING_BYTES;
    if (offset + 3 * line.length > RING_BYTES) {
      this.written += RING_BYTES - offset;
      offset = 0;
    }
    this.starts[this.next] = this.written;
    this.lengths[this.next] = this.bytes.write(line, offset);
    this.written += this.lengths[this.next]!;
    this.next = (this.next + 1) % LOG_CAPACITY;
    this.total++;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    return line;
  }

  /** The last `count` lines still held, oldest first. */
  last(count: number): string[] {
    const lines: string[] = [];
    for (let i = 1; i <= Math.min(count, this.total, LOG_CAPACITY); i++) {
      const slot = (this.next - i + LOG_CAPACITY) % LOG_CAPACITY;
      const start = this.starts[slot]!;
      if (start < this.written - RING_BYTES) break;
      const offset = start % RING_BYTES;
      lines.push(this.bytes.toString('utf8', offset, offset + this.lengths[slot]!));
    }
    return lines.reverse();
  }

  metrics(): { requestsTotal: number; requestsByStatus: Record<string, number> } {
    const requestsByStatus: Record<string, number> = {};
    for (const [status, count] of [...this.byStatus].sort((a, b) => a[0] - b[0])) requestsByStatus[String(status)] = count;
    return { requestsTotal: this.total, requestsByStatus };
  }
}
