import { rolesOf, type Identity } from '../../domain/auth/access.js';
import { costliestHash } from '../../domain/auth/hash-cost.js';
import { PasswordChecksBusyError } from '../../domain/errors.js';
import type { AuthCrypto } from '../ports/auth-crypto.js';
import type { PasswordHashes } from '../ports/password-hashes.js';
import type { PasswordTable } from './password-table.js';

/** How long a verified credential is remembered: bcrypt costs tens of milliseconds per check. */
const REMEMBER_MS = 60_000;
const REMEMBERED_MAX = 10_000;
/** Longer `Authorization` values are refused unread. */
const HEADER_MAX = 4096;
/**
 * Checks of credentials not yet remembered, under way at once for one password file. A
 * flood of guesses would otherwise queue without end (each bcrypt check costs tens of
 * milliseconds or more); beyond this many, a guess is refused at once, and the queue an
 * honest login may find before its own check stays short.
 */
export const CHECKS_UNDER_WAY_MAX = 16;

/**
 * HTTP Basic credentials against a password file. A verified header is remembered
 * for a minute under a keyed hash of it (never the password), so the static fast path
 * stays fast behind basic auth; a changed password file forgets them all.
 */
export class BasicAuthenticator {
  private readonly remembered = new Map<string, { identity: Identity; until: number }>();
  private readonly pending = new Map<string, Promise<Identity | undefined>>();
  /**
   * A hash of a random password as costly to check as the costliest in the file: an
   * unknown user is checked against it, so the answer takes as long as for a known user
   * with a wrong password and does not tell which names exist. Remade when the file changes.
   */
  private decoy: { of: string; hash: Promise<string> } | undefined;

  constructor(
    private readonly table: PasswordTable,
    private readonly hashes: PasswordHashes,
    private readonly crypto: AuthCrypto,
    /** Keys the remembered credentials; random per process. */
    private readonly key: string,
    private readonly roles: Readonly<Record<string, readonly string[]>>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The identity an `Authorization: Basic` header proves, or undefined; synchronous when remembered. */
  authenticate(header: string): Identity | undefined | Promise<Identity | undefined> {
    if (header.length > HEADER_MAX) return undefined;
    const key = this.crypto.fingerprint(this.key, header);
    const known = this.remembered.get(key);
    if (known && known.until > this.now()) {
      if (!this.table.due()) return known.identity;
      // Answered only once the file is looked at: a password changed or removed there must not let one more request in.
      return this.table.refresh().then(
        (changed) => {
          if (!changed) return known.identity;
          this.remembered.clear();
          return this.authenticate(header);
        },
        () => known.identity,
      );
    }
    let verifying = this.pending.get(key);
    if (!verifying) {
      if (this.pending.size >= CHECKS_UNDER_WAY_MAX) return Promise.reject(new PasswordChecksBusyError(`${CHECKS_UNDER_WAY_MAX} password checks are already under way here; try again in a moment`));
      verifying = this.verify(header, key).finally(() => this.pending.delete(key));
      this.pending.set(key, verifying);
    }
    return verifying;
  }

  private async verify(header: string, key: string): Promise<Identity | undefined> {
    if (await this.table.refresh().catch(() => false)) this.remembered.clear();
    const credentials = parseBasic(header);
    if (!credentials) return undefined;
    const hash = this.table.users().get(credentials.user);
    const valid = await this.hashes.verify(credentials.password, hash ?? (await this.decoyHash()));
    if (!valid || hash === undefined) return undefined;
    const identity: Identity = { name: credentials.user, roles: rolesOf([credentials.user], this.roles), via: 'basic' };
    if (this.remembered.size >= REMEMBERED_MAX) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(key, { identity, until: this.now() + REMEMBER_MS });
    return identity;
  }

  /** The hash an unknown user is checked against. */
  decoyHash(): Promise<string> {
    const costliest = costliestHash(this.table.users().values()) ?? FALLBACK_COST;
    if (this.decoy?.of !== costliest) this.decoy = { of: costliest, hash: this.hashes.decoyLike(costliest) };
    return this.decoy.hash;
  }
}

/** An empty password file still costs a bcrypt check per attempt. */
const FALLBACK_COST = '$2y$10$';

/** `Basic base64(user:password)`; undefined for anything else (no colon, bad base64, another scheme). */
export function parseBasic(header: string): { user: string; password: string } | undefined {
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!match || match[1]!.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
