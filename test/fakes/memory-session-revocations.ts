import type { SessionRevocationStore, SessionRevocations } from '../../src/application/ports/session-revocations.js';

/** One set of revocations in memory: session id -> when it would have expired (ms). */
export class MemorySessionRevocations implements SessionRevocations {
  readonly revoked = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  has(id: string): boolean {
    return this.revoked.has(id);
  }

  async claim(id: string, until: number): Promise<boolean> {
    if ((this.revoked.get(id) ?? 0) > this.now()) return false;
    await this.revoke(id, until);
    return true;
  }

  /** Revocations recorded: one made again records nothing, as a store's durable write. */
  writes = 0;

  async revoke(id: string, until: number): Promise<void> {
    if ((this.revoked.get(id) ?? 0) >= until) return;
    this.writes++;
    // Kept until it would have expired anyway, then forgotten, as on disk.
    const now = this.now();
    for (const [known, expiry] of this.revoked) if (expiry <= now) this.revoked.delete(known);
    this.revoked.set(id, until);
  }
}

/**
 * Revocations by workdir, in memory: opening a workdir again finds what was revoked
 * there; without a workdir each opening starts empty. Kept honest by
 * test/contracts/session-revocations.contract.ts.
 */
export class MemorySessionRevocationStore implements SessionRevocationStore {
  readonly workdirs = new Map<string, MemorySessionRevocations>();

  constructor(private readonly now: () => number = Date.now) {}

  async open(workdir: string | undefined): Promise<MemorySessionRevocations> {
    if (workdir === undefined) return new MemorySessionRevocations(this.now);
    let revocations = this.workdirs.get(workdir);
    if (!revocations) this.workdirs.set(workdir, (revocations = new MemorySessionRevocations(this.now)));
    return revocations;
  }
}
