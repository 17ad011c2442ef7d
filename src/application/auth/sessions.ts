import { rolesOf, type Identity } from '../../domain/auth/access.js';
import type { AuthCrypto } from '../ports/auth-crypto.js';

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
 * The `pkg_session` cookie: the claims and an expiry, signed with HMAC-SHA256 under the
 * session secret. The expiry inside is what counts, not the cookie's Max-Age, which a
 * client can ignore. deploy.json roles are looked up on every request, not frozen in.
 */
export class Sessions {
  constructor(
    private readonly secret: string,
    private readonly crypto: AuthCrypto,
    private readonly roles: Readonly<Record<string, readonly string[]>>,
    private readonly now: () => number = Date.now,
  ) {}

  issue(claims: SessionClaims): string {
    const payload = { n: claims.name, k: claims.names, r: claims.roles, e: this.now() + SESSION_MAX_AGE_S * 1000 };
    return this.crypto.sign(Buffer.from(JSON.stringify(payload)).toString('base64url'), this.secret);
  }

  /** The identity of a cookie value; undefined when it is tampered, truncated, malformed or expired. */
  read(value: string): Identity | undefined {
    const payload = this.crypto.unsign(value, this.secret);
    if (payload === undefined) return undefined;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isClaims(claims) || claims.e <= this.now()) return undefined;
    return { name: claims.n, roles: rolesOf(claims.k, this.roles, claims.r), via: 'session' };
  }
}

function isClaims(value: unknown): value is { n: string; k: string[]; r: string[]; e: number } {
  const claims = value as Record<string, unknown>;
  return (
    typeof value === 'object' && value !== null &&
    typeof claims.n === 'string' && typeof claims.e === 'number' &&
    Array.isArray(claims.k) && claims.k.every((k) => typeof k === 'string') &&
    Array.isArray(claims.r) && claims.r.every((r) => typeof r === 'string')
  );
}
