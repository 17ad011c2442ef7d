/**
 * The revocations whose write is under way, each with that write: a second logout of the
 * same session joins it. Answered at once, it would be acknowledged before the revocation
 * is durable, and wrongly so when the write fails.
 */
export class RevocationsInFlight {
  private readonly writes = new Map<string, Promise<unknown>>();

  has(id: string): boolean {
    return this.writes.has(id);
  }

  /** The write under way for `id`, if any. */
  of(id: string): Promise<unknown> | undefined {
    return this.writes.get(id);
  }

  /** Tracks `write` as the one making `id` durable until it settles. */
  track<T>(id: string, write: Promise<T>): Promise<T> {
    this.writes.set(id, write);
    const forget = () => {
      if (this.writes.get(id) === write) this.writes.delete(id);
    };
    write.then(forget, forget);
    return write;
  }
}
