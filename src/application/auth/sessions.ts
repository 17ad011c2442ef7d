import { rolesOf, type Identity } from '../../domain/auth/access.js';
import type { AuthCrypto } from '../ports/auth-crypto.js';
import type { SessionRevocations } from '../ports/session-revocations.js';

export const SESSION_COOKIE = 'pkg_session';
/** Eight hours: a working day, after which the browser signs in again. */
export const SESSION_MAX_AGE_S = 8 * 60 * 60;

/** Who signed in, as the session cookie carries it. */
export interface SessionClaims {
  /** Email, else subject. */
  name: string;
  /** Every name deploy.json may assign roles to: email and subject. */
  names: string[];
  /** Roles the provider's userinfo claimed. */
  roles: string[];
}

/**
 * The `pkg_session` cookie: the claims, the mount and provider it was issued for (its
 * audience), a random id and an expiry, signed with HMAC-SHA256 under the session secret.
 * A session is accepted only by the mount that issued it, and never again once revoked
 * (logout). The expiry inside is what counts, not the cookie's Max-Age, which a client
 * can ignore. deploy.json roles are looked up on every request, not frozen in.
 */
export class Sessions {
  constructor(
    private readonly secret: string,
    private readonly crypto: AuthCrypto,
    private readonly roles: Readonly<Record<string, readonly string[]>>,
    private readonly revocations: SessionRevocations,
    private readonly now: () => number = Date.now,
  ) {}

  issue(claims: SessionClaims, audience: string): string {
    const payload: Payload = { n: claims.name, k: claims.names, r: claims.roles, a: audience, i: this.crypto.random(16), e: this.now() + SESSION_MAX_AGE_S * 1000 };
    return this.crypto.sign(Buffer.from(JSON.stringify(payload)).toString('base64url'), this.secret);
  }

  /** The identity of a cookie value issued for one of `audiences`; undefined when it is tampered, malformed, expired, revoked or another mount's. */
  read(value: string, audiences: ReadonlySet<string>): Identity | undefined {
    const payload = this.payload(value);
    if (!payload || !audiences.has(payload.a) || this.revocations.has(payload.i)) return undefined;
    return { name: payload.n, roles: rolesOf(payload.k, this.roles, payload.r), via: 'session' };
  }

  /** Ends the session for good (logout); a value that is no live session needs nothing. */
  async revoke(value: string): Promise<void> {
    const payload = this.payload(value);
    if (payload) await this.revocations.revoke(payload.i, payload.e);
  }

  private payload(value: string): Payload | undefined {
    const signed = this.crypto.unsign(value, this.secret);
    if (signed === undefined) return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(signed, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    return isPayload(payload) && payload.e > this.now() ? payload : undefined;
  }
}

/** Name, names, roles, audience (mount and provider), id, expiry. */
interface Payload {
  n: string;
  k: string[];
  r: string[];
  a: string;
  i: string;
  e: number;
}

function isPayload(value: unknown): value is Payload {
  const claims = value as Record<string, unknown>;
  return (
    typeof value === 'object' && value !== null &&
    typeof claims.n === 'string' && typeof claims.e === 'number' && typeof claims.a === 'string' && typeof claims.i === 'string' &&
    Array.isArray(claims.k) && claims.k.every((k) => typeof k === 'string') &&
    Array.isArray(claims.r) && claims.r.every((r) => typeof r === 'string')
  );
}
