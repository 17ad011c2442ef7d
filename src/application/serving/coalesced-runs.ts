/**
 * One run at a time per key, and at most one waiting: a caller who asks while a run is
 * under way joins the one that starts after it, which, not begun yet, sees everything done
 * before the caller asked. However many ask at once, a key costs at most two runs.
 */
export class CoalescedRuns<K, T> {
  /** Each key's latest run: under way, or waiting for the one before it. */
  private readonly latest = new Map<K, Promise<T>>();
  private readonly waiting = new Map<K, Promise<T>>();

  run(key: K, work: () => Promise<T>): Promise<T> {
    const waiting = this.waiting.get(key);
    if (waiting) return waiting;
    const before = this.latest.get(key);
    const next = (before ? before.then(settled, settled) : Promise.resolve()).then(() => {
      this.waiting.delete(key);
      return work();
    });
    this.waiting.set(key, next);
    this.latest.set(key, next);
    const forget = () => void (this.latest.get(key) === next && this.latest.delete(key));
    next.then(forget, forget);
    return next;
  }

  /** Whether any run is under way or waiting. */
  get busy(): boolean {
    return this.latest.size > 0;
  }

  /** Settles when every run asked for so far has. */
  all(): Promise<void> {
    return Promise.all([...this.latest.values()].map((run) => run.then(settled, settled))).then(settled);
  }
}

function settled(): void {}
