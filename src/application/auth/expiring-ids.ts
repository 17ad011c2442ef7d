/**
 * Ids remembered until a time (milliseconds since the epoch) and forgotten once it has
 * passed: ended sessions and used login states, which their own expiry makes moot by then.
 * Without forgetting, every logout and login of a long-running reactor stayed in memory.
 * The expired are swept when the set has doubled since the last sweep, so each id costs
 * a constant share of the sweeping.
 */
export class ExpiringIds {
  private readonly until = new Map<string, number>();
  private sweepAt = MIN_SWEEP;

  constructor(private readonly now: () => number = Date.now) {}

  has(id: string): boolean {
    return this.until.has(id);
  }

  add(id: string, until: number): void {
    this.until.set(id, Math.max(this.until.get(id) ?? until, until));
    if (this.until.size >= this.sweepAt) this.sweep();
  }

  get size(): number {
    return this.until.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, until] of this.until) if (until <= now) this.until.delete(id);
    this.sweepAt = Math.max(MIN_SWEEP, 2 * this.until.size);
  }
}

const MIN_SWEEP = 64;
