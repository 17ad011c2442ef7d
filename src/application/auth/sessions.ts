import { rolesOf, type Identity } from '../../domain/auth/access.js';
import { OAuth2ProviderError } from '../../domain/errors.js';
import type { AuthCrypto } from '../ports/auth-crypto.js';
import type { SessionRevocations } from '../ports/session-revocations.js';

export { SESSION_COOKIE } from '../../domain/auth/cookie-names.js';
/** Eight hours: a working day, after which the browser signs in again. */
export const SESSION_MAX_AGE_S = 8 * 60 * 60;
/** Sessions one cookie holds, one per mount (or reactor on the host) signed in to (`~` between them, a character no signed session holds). */
export const MAX_SESSIONS_PER_COOKIE = 8;
const SEPARATOR = '~';
/** Characters of the cookie's value, under the 4,096 bytes browsers keep of a cookie (name, attributes and escapes included). */
const MAX_COOKIE_VALUE = 3000;

/** A session this reactor signed that no longer counts: expired, or not a session at all. */
const DEAD = Symbol('dead session');

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
 *
 * The one cookie holds a session per mount signed in to: every mount shares the
 * reactor's origin, so signing in to one mount kept in a cookie of its own name would
 * still replace another's, and signing out of one would end the other's.
 */
export class Sessions {
  constructor(
    private readonly secret: string,
    private readonly crypto: AuthCrypto,
    private readonly roles: Readonly<Record<string, readonly string[]>>,
    private readonly revocations: SessionRevocations,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A new session for `audience`, as the cookie value to send: the new session first,
   * then those of other mounts the cookie already holds and that are still live, and those
   * this reactor did not sign (the audience's own earlier one is replaced; the oldest
   * beyond the limits drop out).
   */
  issue(claims: SessionClaims, audience: string, cookie?: string): string {
    const payload: Payload = { n: claims.name, k: claims.names, r: claims.roles, a: audience, i: this.crypto.random(16), e: this.now() + SESSION_MAX_AGE_S * 1000 };
    const issued = this.crypto.sign(Buffer.from(JSON.stringify(payload)).toString('base64url'), this.secret);
    // A browser drops a cookie past 4 KB without a word: the login would come back signed out, again and again.
    if (issued.length > MAX_COOKIE_VALUE) {
      throw new OAuth2ProviderError(
        `the userinfo's claims (its names and ${claims.roles.length} roles) make a session of ${issued.length} characters, more than the ${MAX_COOKIE_VALUE} a browser keeps in the session cookie: have the provider claim fewer roles for this client, or give them in deploy.json "roles"`,
      );
    }
    let value = issued;
    let count = 1;
    for (const other of this.sessions(cookie)) {
      // Browsers drop a cookie past 4 KB whole: the older sessions give way before that.
      if (other.payload?.a === audience || value.length + other.value.length >= MAX_COOKIE_VALUE || count === MAX_SESSIONS_PER_COOKIE) continue;
      value += SEPARATOR + other.value;
      count++;
    }
    return value;
  }

  /** The identity of a session the cookie holds for one of `audiences`; undefined when none is there untampered, unexpired and unrevoked. */
  read(cookie: string, audiences: ReadonlySet<string>): Identity | undefined {
    // On every request: each session checked only until one answers, not all of them first.
    for (const { payload } of this.sessions(cookie)) {
      if (payload && audiences.has(payload.a) && !this.revocations.has(payload.i)) return { name: payload.n, roles: rolesOf(payload.k, this.roles, payload.r), via: 'session' };
    }
    return undefined;
  }

  /**
   * Ends for good (logout) the sessions the cookie holds for `audience`, and answers the
   * cookie value left: other mounts' (and reactors') sessions, or undefined when none is.
   */
  async revoke(cookie: string, audience: string): Promise<string | undefined> {
    const sessions = [...this.sessions(cookie)];
    // Even one seen as ended: its revocation may still be on its way to disk, and the logout is acknowledged only once it is there.
    for (const { payload } of sessions) if (payload?.a === audience) await this.revocations.revoke(payload.i, payload.e);
    const left = sessions.filter(({ payload }) => payload?.a !== audience).map(({ value }) => value);
    return left.length > 0 ? left.join(SEPARATOR) : undefined;
  }

  /**
   * The sessions of a cookie value, checked as they are asked for: those this reactor signed
   * that have not expired, with their payload, and those it did not sign, without. Those are
   * another reactor's on this host (cookies are not kept apart by port: two reactors on one
   * host share the one cookie, as mounts do), to be kept as they are; ours expired or
   * malformed are dropped.
   */
  private *sessions(cookie: string | undefined): Generator<{ value: string; payload?: Payload }> {
    if (cookie === undefined) return;
    for (const value of cookie.split(SEPARATOR, MAX_SESSIONS_PER_COOKIE)) {
      if (value === '') continue;
      const payload = this.payload(value);
      if (payload !== DEAD) yield payload === undefined ? { value } : { value, payload };
    }
  }

  /** The payload of a session this reactor signed, DEAD when it has expired or is malformed, undefined when it did not sign it. */
  private payload(value: string): Payload | typeof DEAD | undefined {
    const signed = this.crypto.unsign(value, this.secret);
    if (signed === undefined) return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(signed, 'base64url').toString('utf8'));
    } catch {
      return DEAD;
    }
    return isPayload(payload) && payload.e > this.now() ? payload : DEAD;
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
