import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseCookie } from 'cookie';
import { decideAccess, type Identity } from '../../../domain/auth/access.js';
import { isSameOrigin } from '../../../domain/auth/same-origin.js';
import { CrossSiteWriteError, ForbiddenError, UnauthenticatedError } from '../../../domain/errors.js';
import { DATA_API_PREFIX, type AccessControl } from '../../../domain/package/routes.js';
import { normalizeRequestPath } from '../../../domain/serving/request-path.js';
import type { BasicAuthenticator } from '../../../application/auth/basic-authenticator.js';
import type { MountAuth } from '../../../application/auth/reactor-auth.js';
import { SESSION_COOKIE } from '../../../application/auth/sessions.js';
import type { Mount, Reactor } from '../../../application/serving/reactor.js';
import { sendProblem } from '../http-problems.js';
import { AuthEndpoints } from './auth-endpoints.js';

/** Paths the reactor itself answers at any mount: gated whenever any mount enables authentication. */
export const REACTOR_PATHS = /^\/(api\/v1\/introspect\/|introspect\/|package\/|auth\/)/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const PACKAGE_PATH = /^\/package\/([^/]+)\//;

/** How identities are established for a part of the URL space, worked out once. */
interface Checks {
  auths: readonly MountAuth[];
  basics: readonly BasicAuthenticator[];
  /** The sessions that count: those issued by these mounts' OAuth2 logins, the only way to get one. */
  audiences: ReadonlySet<string>;
}

function checksOf(auths: readonly MountAuth[]): Checks {
  return { auths, basics: auths.flatMap((auth) => (auth.basic ? [auth.basic.authenticator] : [])), audiences: new Set(auths.flatMap((auth) => (auth.oauth2 ? [auth.oauth2.audience] : []))) };
}

/**
 * Every request meets this gate before anything is served, on the fast path and in
 * express alike: it answers the login endpoints, establishes the identity (basic
 * credentials, else the session cookie), and refuses with 401 or 403 as SPEC.md orders,
 * or a session-cookie write that did not come from this reactor's origin. A reactor
 * without authentication anywhere has no gate at all.
 */
export class AuthGate {
  private readonly identities = new WeakMap<IncomingMessage, Identity>();
  /** The reactor's own endpoints accept the identities of every mount that enables authentication. */
  private readonly reactorChecks: Checks;
  private readonly mountChecks = new Map<MountAuth, Checks>();
  private readonly endpoints: AuthEndpoints;

  private constructor(private readonly reactor: Reactor) {
    this.reactorChecks = checksOf(reactor.all().flatMap((mount) => (mount.auth?.enabled ? [mount.auth] : [])));
    for (const { auth } of reactor.all()) if (auth) this.mountChecks.set(auth, checksOf([auth]));
    this.endpoints = new AuthEndpoints(reactor.auth);
  }

  static of(reactor: Reactor): AuthGate | undefined {
    return reactor.all().some((mount) => mount.auth) ? new AuthGate(reactor) : undefined;
  }

  /** True when the gate answered the request; false when it may go on (its identity kept for later checks). */
  screen(request: IncomingMessage, response: ServerResponse): boolean | Promise<boolean> {
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    const parsed = normalizeRequestPath(query < 0 ? url : url.slice(0, query));
    // Malformed paths go on to be refused with their 400 by the resolution, which serves nothing.
    if (!parsed.ok) return false;
    const match = this.reactor.mounts.match(parsed.path);
    const own = match?.mount.auth;
    if (own?.oauth2) {
      const answered = this.endpoints.answer(request, response, own.oauth2, match!.mount.prefix, parsed.path);
      if (answered) return answered;
    }
    let checks: Checks;
    let rule: AccessControl | undefined;
    let enabled = true;
    if (REACTOR_PATHS.test(parsed.path)) {
      // `/package/<name>/...` is that package's: only its own mount's identities, where it enables authentication.
      const named = PACKAGE_PATH.exec(parsed.path);
      const auth = named ? this.reactor.byName(decodeURIComponent(named[1]!))?.auth : undefined;
      checks = auth?.enabled ? this.mountChecks.get(auth)! : this.reactorChecks;
      if (checks.auths.length === 0) return false;
    } else {
      if (!own) return false;
      checks = this.mountChecks.get(own)!;
      rule = ruleOf(match!.mount, match!.path);
      enabled = own.enabled;
    }
    const identity = this.identify(request, checks);
    if (identity instanceof Promise) return identity.then((who) => this.admit(request, response, decideAccess(rule, enabled, who), who, checks.auths));
    return this.admit(request, response, decideAccess(rule, enabled, identity), identity, checks.auths);
  }

  /** The GraphQL resolvers' check: a dataset's route rules for this request's identity. */
  authorizeDataset(mount: Mount, request: IncomingMessage, datasetId: string): void {
    const decision = decideAccess(mount.auth?.datasetRules.get(datasetId), mount.auth?.enabled ?? false, this.identities.get(request));
    if (decision === 'unauthenticated') throw new UnauthenticatedError(`dataset ${datasetId} needs an authenticated identity`);
    if (decision === 'forbidden') throw new ForbiddenError(`dataset ${datasetId} needs one of the roles ${rolesNeeded(mount.auth!.datasetRules.get(datasetId))}`);
  }

  private admit(request: IncomingMessage, response: ServerResponse, decision: ReturnType<typeof decideAccess>, who: Identity | undefined, auths: readonly MountAuth[]): boolean {
    if (decision === 'unauthenticated') {
      this.endpoints.challenge(request, response, auths);
      return true;
    }
    if (decision === 'forbidden') {
      sendProblem(response, new ForbiddenError(`${who!.name} lacks the role this route needs`));
      return true;
    }
    if (!who) return false;
    if (who.via === 'session' && !SAFE_METHODS.has(request.method ?? 'GET') && !this.sameOrigin(request)) {
      sendProblem(response, new CrossSiteWriteError('a write signed in by the session cookie must come from this site (Origin or Sec-Fetch-Site)'));
      return true;
    }
    this.identities.set(request, who);
    return false;
  }

  /** Basic credentials when the request sends them (a wrong one is not rescued by a cookie), else the session. */
  private identify(request: IncomingMessage, { basics, audiences }: Checks): Identity | undefined | Promise<Identity | undefined> {
    const header = request.headers.authorization;
    if (header !== undefined && basics.length > 0) return basics.length === 1 ? basics[0]!.authenticate(header) : firstIdentity(basics.map((basic) => () => basic.authenticate(header)));
    const sessions = this.reactor.auth.sessions;
    if (!sessions || audiences.size === 0 || request.headers.cookie === undefined) return undefined;
    const value = parseCookie(request.headers.cookie)[SESSION_COOKIE];
    return value === undefined ? undefined : sessions.read(value, audiences);
  }

  private sameOrigin(request: IncomingMessage): boolean {
    const origins = [`http://${request.headers.host ?? ''}`.toLowerCase()];
    const base = this.reactor.auth.deploy.baseUrl;
    if (base !== undefined) origins.push(new URL(base).origin.toLowerCase());
    const site = request.headers['sec-fetch-site'];
    return isSameOrigin({ origin: request.headers.origin, secFetchSite: typeof site === 'string' ? site : undefined }, origins);
  }
}

/** The rule of the route a path resolves to; below `/api/v1/data/`, the rule of that dataset's route. */
function ruleOf(mount: Mount, path: string): AccessControl | undefined {
  if (path.startsWith(DATA_API_PREFIX)) {
    const rest = path.slice(DATA_API_PREFIX.length);
    const slash = rest.indexOf('/');
    return mount.auth?.datasetRules.get(slash < 0 ? rest : rest.slice(0, slash));
  }
  return mount.pkg.routes.lookup(path)?.route?.accessControl;
}

function firstIdentity(checks: Array<() => Identity | undefined | Promise<Identity | undefined>>): Identity | undefined | Promise<Identity | undefined> {
  for (let index = 0; index < checks.length; index++) {
    const result = checks[index]!();
    if (result instanceof Promise) return result.then((identity) => identity ?? firstIdentity(checks.slice(index + 1)));
    if (result) return result;
  }
  return undefined;
}

function rolesNeeded(rule: AccessControl | undefined): string {
  return (rule?.roles ?? []).join(', ');
}
