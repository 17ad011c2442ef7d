import { OAuth2CallbackError, OAuth2ProviderError, OAuth2StateError } from '../../domain/errors.js';
import type { OAuth2Config } from '../../domain/package/authentication.js';
import type { AuthCrypto } from '../ports/auth-crypto.js';
import type { OAuth2Provider } from '../ports/oauth2-provider.js';
import type { SessionClaims } from './sessions.js';
import type { SessionRevocations } from '../ports/session-revocations.js';

export { STATE_COOKIE } from '../../domain/auth/cookie-names.js';
/** Ten minutes to sign in at the provider and come back. */
export const STATE_MAX_AGE_S = 10 * 60;

export interface OAuth2LoginSettings {
  config: OAuth2Config;
  clientSecret?: string;
  /** The mount's prefix + redirectPath: where the provider sends the browser back. */
  callbackPath: string;
}

export interface CallbackQuery {
  code?: string;
  state?: string;
  error?: string;
}

/**
 * The OAuth2 authorization-code flow with PKCE (S256). The `state` sent to the provider
 * is a nonce with its HMAC; the nonce, the PKCE verifier and where to return travel in
 * a short-lived signed cookie, so a callback is accepted only in the browser that
 * started the login, only once, and only with a state this reactor made. "Once" holds
 * across workers, restarts and reactors sharing an overlay: a used state is ended where
 * logouts are (the secret that signs states is shared as widely).
 */
export class OAuth2Login {
  constructor(
    private readonly settings: OAuth2LoginSettings,
    private readonly secret: string,
    private readonly crypto: AuthCrypto,
    private readonly provider: OAuth2Provider,
    /** Where used states are ended: the reactor's session revocations. */
    private readonly ended: SessionRevocations,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where to send the browser, and the state cookie to set on the way; `origin`: the reactor's public one, where the callback is. */
  begin(returnTo: string, origin: string): { location: string; stateCookie: string } {
    const { config, callbackPath } = this.settings;
    // The token request must repeat the redirect_uri exactly, so the cookie keeps it.
    const redirectUri = origin + callbackPath;
    const nonce = this.crypto.random(16);
    const verifier = this.crypto.random(32);
    const cookie: PendingLogin = { s: nonce, v: verifier, t: returnTo, r: redirectUri, e: this.now() + STATE_MAX_AGE_S * 1000 };
    const url = new URL(config.authorizationUrl!);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', config.clientId!);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', (config.scopes ?? ['openid', 'email', 'profile']).join(' '));
    url.searchParams.set('state', `${nonce}.${this.stateMac(nonce)}`);
    url.searchParams.set('code_challenge', this.crypto.sha256(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return { location: url.toString(), stateCookie: this.crypto.sign(Buffer.from(JSON.stringify(cookie)).toString('base64url'), this.secret) };
  }

  /** Checks the state, exchanges the code and reads userinfo: the claims of the new session and where to return. */
  async complete(query: CallbackQuery, stateCookie: string | undefined): Promise<{ claims: SessionClaims; returnTo: string }> {
    const pending = this.checkState(query.state, stateCookie);
    if (query.error !== undefined) throw new OAuth2ProviderError(`the provider refused the login: ${query.error.slice(0, 100)}`);
    if (query.code === undefined || query.code === '') throw new OAuth2CallbackError('the callback carries no authorization code');
    const { config, clientSecret } = this.settings;
    const { accessToken } = await this.provider.exchangeCode({ tokenUrl: config.tokenUrl!, clientId: config.clientId!, clientSecret, code: query.code, redirectUri: pending.r, codeVerifier: pending.v });
    const claims = claimsOf(await this.provider.userinfo(config.userinfoUrl!, accessToken));
    // Claimed only once the provider vouched for the login: no one without a code of its own makes a durable write here.
    if (!(await this.ended.claim(stateKey(pending.s), pending.e))) throw new OAuth2StateError(USED);
    return { claims, returnTo: pending.t };
  }

  /**
   * Whether the callback is the one of the login the state cookie holds. A callback of
   * another (a login started since in another tab, whose cookie replaced this one, or one a
   * stranger's link sends) must leave the cookie to the login it belongs to.
   */
  isCookieLogin(state: string | undefined, stateCookie: string | undefined): boolean {
    const cookie = this.pending(stateCookie);
    return cookie !== undefined && state !== undefined && this.crypto.equal(cookie.s, state.slice(0, Math.max(0, state.indexOf('.'))));
  }

  /** The login a state cookie holds, when this reactor signed it. */
  private pending(stateCookie: string | undefined): PendingLogin | undefined {
    const payload = stateCookie === undefined ? undefined : this.crypto.unsign(stateCookie, this.secret);
    return payload === undefined ? undefined : parseCookie(payload);
  }

  private checkState(state: string | undefined, stateCookie: string | undefined): PendingLogin {
    if (state === undefined || stateCookie === undefined) throw new OAuth2StateError(state === undefined ? 'the callback carries no state' : 'no login was started in this browser (the state cookie is missing)');
    const dot = state.indexOf('.');
    const nonce = state.slice(0, dot);
    if (dot <= 0 || !this.crypto.equal(state.slice(dot + 1), this.stateMac(nonce))) throw new OAuth2StateError('the state was not made by this reactor for this mount');
    const cookie = this.pending(stateCookie);
    if (!cookie || !this.crypto.equal(cookie.s, nonce)) throw new OAuth2StateError('the state belongs to another login');
    const now = this.now();
    if (cookie.e <= now) throw new OAuth2StateError('the login took too long; start again');
    if (this.ended.has(stateKey(nonce))) throw new OAuth2StateError(USED);
    return cookie;
  }

  /** Bound to the mount's callback: the mounts of a reactor share the secret, and a login started at one is not completed at another. */
  private stateMac(nonce: string): string {
    return this.crypto.hmac(this.secret, `oauth2-state:${this.settings.callbackPath}:${nonce}`);
  }
}

const USED = 'the state was used already';

/** A used state among the revocations, apart from session ids. */
function stateKey(nonce: string): string {
  return `oauth2-state:${nonce}`;
}

/** The state cookie: nonce, PKCE verifier, where to return, the redirect_uri sent, expiry. */
interface PendingLogin {
  s: string;
  v: string;
  t: string;
  r: string;
  e: number;
}

function parseCookie(payload: string): PendingLogin | undefined {
  try {
    const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const strings = ['s', 'v', 't', 'r'].every((field) => typeof value[field] === 'string');
    return strings && typeof value.e === 'number' ? (value as unknown as PendingLogin) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A verified email names the identity, else the subject; a userinfo with neither
 * identifies no one. Roles given to an email in deploy.json reach the user only when the
 * provider says the email is verified (`email_verified` true): anyone can type someone
 * else's address into an account at a provider that does not check it.
 */
function claimsOf(userinfo: Record<string, unknown>): SessionClaims {
  const verified = userinfo.email_verified === true || userinfo.email_verified === 'true';
  const email = verified ? nonEmpty(userinfo.email) : undefined;
  const subject = nonEmpty(userinfo.sub);
  if (email === undefined && subject === undefined) throw new OAuth2ProviderError(nonEmpty(userinfo.email) ? 'the userinfo endpoint answered with an unverified email and no subject' : 'the userinfo endpoint answered without an email or a subject');
  const roles = Array.isArray(userinfo.roles) ? userinfo.roles.filter((role): role is string => typeof role === 'string') : [];
  return { name: (email ?? subject)!, names: [email, subject].filter((name): name is string => name !== undefined), roles };
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
