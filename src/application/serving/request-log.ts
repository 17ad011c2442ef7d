/** Lines kept for `/package/<name>/logs`: a small in-memory ring. */
export const LOG_CAPACITY = 1000;

/**
 * The reactor-global access log and request metrics. A line is
 * `<utc timestamp> <METHOD> <path> -> <status>`, the same on stdout and in the ring.
 */
export class RequestLog {
  private readonly ring: string[] = new Array(LOG_CAPACITY);
  private next = 0;
  private stored = 0;
  private total = 0;
  private readonly byStatus = new Map<number, number>();
  private stampTime = -1;
  private stamp = '';

  record(method: string, path: string, status: number, at: Date): string {
    const time = at.getTime();
    if (time !== this.stampTime) {
      this.stampTime = time;
      this.stamp = at.toISOString();
    }
    const line = `${this.stamp} ${method} ${path} -> ${status}`;
    this.ring[this.next] = line;
    this.next = (this.next + 1) % LOG_CAPACITY;
    this.stored = Math.min(this.stored + 1, LOG_CAPACITY);
    this.total++;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    return line;
  }

  /** The last `count` lines, oldest first. */
  last(count: number): string[] {
    const n = Math.max(0, Math.min(count, this.stored));
    const lines: string[] = [];
    for (let i = n; i > 0; i--) lines.push(this.ring[(this.next - i + LOG_CAPACITY) % LOG_CAPACITY]!);
    return lines;
  }

  metrics(): { requestsTotal: number; requestsByStatus: Record<string, number> } {
    const requestsByStatus: Record<string, number> = {};
    for (const [status, count] of [...this.byStatus].sort((a, b) => a[0] - b[0])) requestsByStatus[String(status)] = count;
    return { requestsTotal: this.total, requestsByStatus };
  }
}
