import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseCookie, stringifySetCookie } from 'cookie';
import { CrossSiteWriteError, OAuth2CallbackError, OAuth2StateError } from '../../../domain/errors.js';
import { safeReturnPath } from '../../../domain/auth/same-origin.js';
import { STATE_COOKIE, STATE_MAX_AGE_S } from '../../../application/auth/oauth2-login.js';
import type { MountAuth, ReactorAuth, SignInEndpoint } from '../../../application/auth/reactor-auth.js';
import { SESSION_COOKIE, SESSION_MAX_AGE_S } from '../../../application/auth/sessions.js';
import { HttpProblem, methodNotAllowed, sendProblem } from '../http-problems.js';
import type { PublicOrigin } from './public-origin.js';
import { splitTarget } from '../request-query.js';

type OAuth2Endpoints = NonNullable<MountAuth['oauth2']>;

/**
 * The HTTP side of signing in: `<mount>/auth/login` (to the provider), the callback
 * (`<mount>` + redirectPath), `<mount>/auth/logout`, and the 401 challenge. Cookies
 * are `HttpOnly; SameSite=Lax; Path=/`, and `Secure` when the reactor's public origin is https.
 */
export class AuthEndpoints {
  constructor(
    private readonly auth: ReactorAuth,
    private readonly origin: PublicOrigin,
  ) {}

  /** Answers one of the mount's login endpoints; failures are answered too, never thrown. */
  async answer(request: IncomingMessage, response: ServerResponse, oauth2: OAuth2Endpoints, prefix: string, endpoint: SignInEndpoint): Promise<void> {
    const method = request.method ?? 'GET';
    const { query } = splitTarget(request.url ?? '');
    const cookies = request.headers.cookie === undefined ? {} : parseCookie(request.headers.cookie);
    const cookie = (name: string, value: string, maxAge: number) => this.cookie(name, value, maxAge, this.origin.secure(request));
    // The mount's root, where a logout and a login without returnTo go: as a Location carries it (`/文档/` percent-encoded).
    const home = safeReturnPath(prefix, '/');
    // HEAD is GET without a body (RFC 9110 §9.3.2) where a GET changes nothing here: the login, whose
    // state lives in the cookie it sets. The callback's GET spends a one-time code and the logout
    // ends a session, which a HEAD (a safe method, sent by link checkers and prefetchers) must not do.
    if (endpoint === 'logout') {
      if (method !== 'GET' && method !== 'POST') return sendProblem(response, methodNotAllowed('GET, POST'));
      // A page of another site that navigates here carries the SameSite=Lax cookie (a top-level
      // GET): it would sign the user out unasked. A POST from there meets the cross-site guard.
      if (method === 'GET' && request.headers['sec-fetch-site'] === 'cross-site') {
        return sendProblem(response, new CrossSiteWriteError("a logout sent from another site's page is refused: sign out from this site's own pages"));
      }
      const session = cookies[SESSION_COOKIE];
      let left: string | undefined;
      try {
        // Revoked server-side before the answer: the same cookie, replayed, signs no one in again. Other mounts' sessions stay.
        if (session !== undefined) left = await this.auth.sessions!.revoke(session, oauth2.audience);
      } catch (error) {
        return sendProblem(response, error);
      }
      return this.redirect(response, method === 'GET' ? home : undefined, [left === undefined ? cookie(SESSION_COOKIE, '', 0) : cookie(SESSION_COOKIE, left, SESSION_MAX_AGE_S)]);
    }
    if (endpoint === 'login') {
      if (method !== 'GET' && method !== 'HEAD') return sendProblem(response, methodNotAllowed('GET, HEAD'));
      let origin: string;
      try {
        origin = this.origin.of(request);
      } catch (error) {
        return sendProblem(response, error);
      }
      const { location, stateCookie } = oauth2.login.begin(safeReturnPath(query.get('returnTo') ?? undefined, home), origin);
      return this.redirect(response, location, [cookie(STATE_COOKIE, stateCookie, STATE_MAX_AGE_S)]);
    }
    if (method !== 'GET') return sendProblem(response, methodNotAllowed('GET'));
    const callback = { code: query.get('code') ?? undefined, state: query.get('state') ?? undefined, error: query.get('error') ?? undefined };
    // The state cookie serves its login's one callback, whatever comes of it.
    const clearState = cookie(STATE_COOKIE, '', 0);
    try {
      // RFC 6749 sends each once: a second one was added on the way, and which to believe is not for the reactor to guess.
      const repeated = Object.keys(callback).find((name) => query.getAll(name).length > 1);
      if (repeated) throw new OAuth2CallbackError(`the callback carries "${repeated}" more than once`);
      const { claims, returnTo } = await oauth2.login.complete(callback, cookies[STATE_COOKIE]);
      // The session this login replaces is ended, as a logout would: out of the cookie, no later logout could reach it.
      const earlier = cookies[SESSION_COOKIE];
      const kept = earlier === undefined ? undefined : await this.auth.sessions!.revoke(earlier, oauth2.audience);
      this.redirect(response, returnTo, [clearState, cookie(SESSION_COOKIE, this.auth.sessions!.issue(claims, oauth2.audience, kept), SESSION_MAX_AGE_S)]);
    } catch (error) {
      // A failed callback of another login leaves this browser's own login to complete.
      if (oauth2.login.isCookieLogin(callback.state, cookies[STATE_COOKIE])) response.setHeader('Set-Cookie', clearState);
      if (error instanceof OAuth2StateError) response.setHeader('WWW-Authenticate', cookieChallenge(oauth2));
      sendProblem(response, error);
    }
  }

  /**
   * 401 for a request without an identity, with a challenge for each way in (challenges); a
   * browser page of an OAuth2 mount also gets a link on to the login.
   */
  challenge(request: IncomingMessage, response: ServerResponse, auths: readonly MountAuth[]): void {
    const oauth2 = auths.find((auth) => auth.oauth2)?.oauth2;
    const schemes = challenges(auths);
    if (schemes.length > 0) response.setHeader('WWW-Authenticate', schemes);
    const accept = request.headers.accept ?? '';
    if (oauth2 && (request.method === 'GET' || request.method === 'HEAD') && accept.includes('text/html')) {
      const login = `${oauth2.loginPath}?returnTo=${encodeURIComponent(request.url ?? '/')}`;
      const body = `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${escapeHtml(login)}"><title>Sign in</title><p>This page needs you to <a href="${escapeHtml(login)}">sign in</a>.</p>\n`;
      response.writeHead(401, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
      response.end(body);
      return;
    }
    sendProblem(response, new HttpProblem(401, 'UNAUTHENTICATED', 'authentication required'));
  }

  /** 302 to the location, or 204 without one. */
  private redirect(response: ServerResponse, location: string | undefined, cookies: string[]): void {
    response.writeHead(location === undefined ? 204 : 302, { ...(location === undefined ? {} : { Location: location }), 'Set-Cookie': cookies, 'Cache-Control': 'no-store' });
    response.end();
  }

  private cookie(name: string, value: string, maxAge: number, secure: boolean): string {
    return stringifySetCookie({ name, value, httpOnly: true, sameSite: 'lax', path: '/', maxAge, secure });
  }
}

/**
 * `WWW-Authenticate`, which RFC 9110 §11.6.1 requires of every 401: `Basic realm="..."` where
 * basic auth is on (SPEC.md), and where OAuth2 is, cookieChallenge. A mount with both sends
 * each in a field line of its own, Basic first: browsers read one challenge per line, and a
 * Basic one after another scheme on the same line may go unseen (no password dialog). A
 * mount with neither (a route needing an identity in a package that enables no
 * authentication) has no way in to name, and gets no challenge.
 */
function challenges(auths: readonly MountAuth[]): string[] {
  const basic = auths.find((auth) => auth.basic)?.basic;
  const oauth2 = auths.find((auth) => auth.oauth2)?.oauth2;
  return [...(basic ? [`Basic realm=${quoted(basic.realm)}`] : []), ...(oauth2 ? [cookieChallenge(oauth2)] : [])];
}

/**
 * An OAuth2 mount's way in: sign in at its login, then send the session cookie, in the
 * `Cookie` scheme of draft-broyer-http-cookie-auth. No registered scheme says that, and
 * `Bearer` would promise tokens the reactor does not take. Browsers show their password
 * dialog for Basic only: this one shows none.
 */
function cookieChallenge(oauth2: OAuth2Endpoints): string {
  return `Cookie realm=${quoted(oauth2.realm)}, form-action=${quoted(encodeURI(oauth2.loginPath))}, cookie-name=${SESSION_COOKIE}`;
}

/** An RFC 9110 quoted-string. */
function quoted(text: string): string {
  return `"${text.replace(/["\\]/g, '\\$&')}"`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
