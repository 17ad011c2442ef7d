import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseCookie } from 'cookie';
import { decideAccess, type Identity } from '../../../domain/auth/access.js';
import { datasetDecision, datasetView, type DatasetView } from '../../../application/auth/dataset-access.js';
import { CrossSiteWriteError, ForbiddenError, UnauthenticatedError } from '../../../domain/errors.js';
import type { AccessControl } from '../../../domain/package/routes.js';
import type { BasicAuthenticator } from '../../../application/auth/basic-authenticator.js';
import type { MountAuth } from '../../../application/auth/reactor-auth.js';
import { SESSION_COOKIE } from '../../../application/auth/sessions.js';
import type { Mount, Reactor } from '../../../application/serving/reactor.js';
import type { CrossSiteGuard } from '../cross-site-guard.js';
import { sendProblem } from '../http-problems.js';
import { graphqlDatasets } from '../graphql/graphql-datasets.js';
import { AuthEndpoints } from './auth-endpoints.js';
import { PublicOrigin } from './public-origin.js';
import { contextOf, type RequestContext } from '../request-context.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How identities are established for a part of the URL space, worked out once. */
interface Checks {
  basics: readonly BasicAuthenticator[];
  /** The sessions that count: those issued by these mounts' OAuth2 logins, the only way to get one. */
  audiences: ReadonlySet<string>;
}

/**
 * Every request meets this gate before anything is served, on the fast path and in
 * express alike: it answers the login endpoints, establishes the identity (basic
 * credentials, else the session cookie), and refuses with 401 or 403 as SPEC.md orders,
 * or a session-cookie write that did not come from this reactor's origin. A reactor
 * without authentication anywhere has no gate at all.
 */
export class AuthGate {
  /** By the list of authenticators a resolution names (the resolver keeps one list per mount, and one for the reactor's own paths). */
  private readonly checks = new Map<readonly MountAuth[], Checks>();
  /** Each mount's authentication alone, one list each, so its checks are worked out once (`identityAt`). */
  private readonly own = new Map<MountAuth, readonly MountAuth[]>();
  private readonly endpoints: AuthEndpoints;

  private constructor(
    private readonly reactor: Reactor,
    /** Which pages may write: the session cookie's writes must come from one of them. */
    private readonly guard: CrossSiteGuard,
  ) {
    this.endpoints = new AuthEndpoints(reactor.auth, new PublicOrigin(reactor));
  }

  static of(reactor: Reactor, guard: CrossSiteGuard): AuthGate | undefined {
    return reactor.all().some((mount) => mount.auth) ? new AuthGate(reactor, guard) : undefined;
  }

  /**
   * True when the request may go on, its identity (if any) kept in its context; false when
   * the gate answered it: a login endpoint, a 401 or 403, or a cross-site session write.
   */
  screen(context: RequestContext, request: IncomingMessage, response: ServerResponse): boolean | Promise<boolean> {
    const { target, access } = context;
    if (target.kind === 'auth') {
      return this.endpoints.answer(request, response, target.mount.auth!.oauth2!, target.mount.prefix, target.endpoint).then(() => false);
    }
    if (!access) return true;
    const identity = this.identify(request, this.checksOf(access.auths));
    const admit = (who: Identity | undefined) => this.admit(context, request, response, decideAccess(access.rule, access.enabled, who), who, access.auths) && this.graphqlShowsSome(context, request, response);
    return identity instanceof Promise ? identity.then(admit) : admit(identity);
  }

  /** The GraphQL resolvers' check: a dataset's route rules for this request's identity. */
  authorizeDataset(mount: Mount, request: IncomingMessage, datasetId: string): void {
    const decision = datasetDecision(mount.auth, datasetId, contextOf(request).identity);
    if (decision === 'unauthenticated') throw new UnauthenticatedError(`dataset ${datasetId} needs an authenticated identity`);
    if (decision === 'forbidden') throw new ForbiddenError(`dataset ${datasetId} needs one of the roles ${rolesNeeded(mount.auth!.datasetRules.get(datasetId))}`);
  }

  /** Which of a mount's datasets (`ids`) this request may read: what its OpenAPI document and GraphQL schema show it. */
  datasetView(mount: Mount, request: IncomingMessage, ids: readonly string[]): DatasetView {
    return datasetView(mount.auth, ids, contextOf(request).identity);
  }

  /**
   * The request's identity as `mount` knows it, for a report of the reactor's own that
   * covers every mount: those paths accept any mount's identities, and one proven to
   * another mount (its password file, its session) is none here, as on the mount's own paths.
   */
  identityAt(mount: Mount, request: IncomingMessage): Identity | undefined | Promise<Identity | undefined> {
    const auth = mount.auth;
    if (!auth) return undefined;
    const { access, identity } = contextOf(request);
    if (access?.auths.length === 1 && access.auths[0] === auth) return identity;
    return this.identify(request, this.checksOf(this.ownAuths(auth)));
  }

  private admit(context: RequestContext, request: IncomingMessage, response: ServerResponse, decision: ReturnType<typeof decideAccess>, who: Identity | undefined, auths: readonly MountAuth[]): boolean {
    if (decision === 'unauthenticated') {
      this.endpoints.challenge(request, response, auths);
      return false;
    }
    if (decision === 'forbidden') {
      sendProblem(response, new ForbiddenError(`${who!.name} lacks the role this route needs`));
      return false;
    }
    if (!who) return true;
    if (who.via === 'session' && !SAFE_METHODS.has(request.method ?? 'GET') && !this.guard.sentByAllowedPage(context, request)) {
      sendProblem(response, new CrossSiteWriteError('a write signed in by the session cookie must come from this site or an allowed origin (Origin or Sec-Fetch-Site)'));
      return false;
    }
    context.identity = who;
    return true;
  }

  private ownAuths(auth: MountAuth): readonly MountAuth[] {
    let auths = this.own.get(auth);
    if (!auths) this.own.set(auth, (auths = [auth]));
    return auths;
  }

  /**
   * GraphQL for a requester who may read none of the mount's datasets would be a schema
   * without a field, which GraphQL does not allow: refused instead, as the data API of each
   * of them refuses it (401 with the challenge, or 403).
   */
  private graphqlShowsSome(context: RequestContext, request: IncomingMessage, response: ServerResponse): boolean {
    const { target } = context;
    if (target.kind !== 'graphql') return true;
    const { mount } = target;
    const served = graphqlDatasets(mount.datasets, mount.pkg.model.storage?.dataSets ?? {}).map((dataset) => dataset.id);
    const { refusal } = this.datasetView(mount, request, served);
    if (refusal === 'unauthenticated') this.endpoints.challenge(request, response, context.access!.auths);
    else if (refusal === 'forbidden') sendProblem(response, new ForbiddenError(`${context.identity?.name ?? 'the request'} may read none of the datasets GraphQL serves here`));
    return refusal === undefined;
  }

  private checksOf(auths: readonly MountAuth[]): Checks {
    let checks = this.checks.get(auths);
    if (!checks) {
      checks = { basics: auths.flatMap((auth) => (auth.basic ? [auth.basic.authenticator] : [])), audiences: new Set(auths.flatMap((auth) => (auth.oauth2 ? [auth.oauth2.audience] : []))) };
      this.checks.set(auths, checks);
    }
    return checks;
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
