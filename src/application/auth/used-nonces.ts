/** Most login states remembered as used: some 15 MB. */
export const USED_NONCES_MAX = 100_000;

/**
 * The nonces of OAuth2 login states already used, each until its state would have expired
 * anyway. They are kept in the order they were used and forgotten from the oldest, so a
 * callback costs the same however many came before it: looking through all of them at
 * each callback made a flood of logins started and called back quadratic, holding the
 * event loop. Past `max` the oldest is forgotten early; its state could then be used
 * again only from the browser holding its cookie, and with a code the provider takes once.
 */
export class UsedNonces {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly max = USED_NONCES_MAX) {}

  /** True, and the nonce is recorded as used until `expires`, unless it was used already. */
  claim(nonce: string, expires: number, now: number): boolean {
    const earlier = this.expiries.get(nonce);
    if (earlier !== undefined && earlier > now) return false;
    this.expiries.delete(nonce);
    for (const [oldest, expiry] of this.expiries) {
      if (expiry > now && this.expiries.size < this.max) break;
      this.expiries.delete(oldest);
    }
    this.expiries.set(nonce, expires);
    return true;
  }

  get size(): number {
    return this.expiries.size;
  }
}
