import { AmbiguousPackageError, BadRequestPathError, HandlerNotSupportedError, InvalidQueryError, RequestPathTooLongError, ResourceNotFoundError, type PackageError } from '../../domain/errors.js';
import { API_PAGE_PATH, DATA_API_PREFIX, OPENAPI_PATH, type AccessControl, type Route } from '../../domain/package/routes.js';
import { normalizeRequestPath } from '../../domain/serving/request-path.js';
import { API_DOCS_ASSETS_PATH, GRAPHIQL_ASSETS_PATH, GRAPHQL_PATH, HEALTH_PATHS, METRICS_PATH, PACKAGE_ENDPOINT_PATH, REACTOR_PATHS, WHOLE_SERVER_TARGET, isIntrospectionPath, type HealthProbe, type IntrospectionPath } from '../../domain/serving/reactor-paths.js';
import { signInPaths, type MountAuth, type SignInEndpoint } from '../auth/reactor-auth.js';
import type { Mount, Reactor } from './reactor.js';
import type { StaticFile } from './served-package.js';

/**
 * What a request comes to, decided once from its method and path, before anything is
 * read or checked. A `file` target carries the file when its lookup is cached already
 * (the hot path), else it is looked up when answered.
 */
export type RequestTarget =
  | { kind: 'file'; mount: Mount; path: string; file?: StaticFile }
  /** The data API: a collection, or one item of it (`item` as the path spells it). */
  | { kind: 'data'; mount: Mount; dataset: string; item?: string; history?: true }
  | { kind: 'graphql'; mount: Mount }
  /** The mount's data API described in OpenAPI 3.1 (`page`: shown to a browser). */
  | { kind: 'openapi'; mount: Mount; page: boolean }
  /** A read of a folder, or of a mount's root, without its trailing slash: 301 to `location` (decoded), the path with it. */
  | { kind: 'redirect'; mount: Mount; location: string }
  /** A content write (PUT, DELETE) to a path below a mount. */
  | { kind: 'content'; mount: Mount; path: string }
  | { kind: 'introspection'; report: IntrospectionPath }
  /** `/healthz` and `/readyz`: never behind authentication. */
  | { kind: 'health'; probe: HealthProbe }
  /** `OPTIONS *`: what the server as a whole answers, no package's. */
  | { kind: 'server-options' }
  /** `/metrics`, Prometheus's text exposition. */
  | { kind: 'metrics' }
  /** `/__pkg/graphiql/<file>`: the GraphiQL page's scripts and styles, public code served by the reactor itself. */
  | { kind: 'graphiql'; file: string }
  /** `/__pkg/api-docs/<file>`: the API page's scripts and styles, served the same way. */
  | { kind: 'api-docs-asset'; file: string }
  /** `/package/<name>/<endpoint>`: its status, metadata, logs, or save; `problem` when `?mount=` names none of its mounts, or a save names none and there are several. */
  | { kind: 'package'; name: string; endpoint: string; mount?: Mount; problem?: PackageError }
  /** A mount's OAuth2 login, callback or logout. */
  | { kind: 'auth'; mount: Mount; endpoint: SignInEndpoint }
  /** Refused before anything else: a path that steps outside, nothing there, a handler route. */
  | { kind: 'refused'; error: PackageError };

/** Who may make the request: the authenticators whose identities count, and the route's rule. */
export interface Access {
  auths: readonly MountAuth[];
  /** The route's (or dataset's) access rule, if it has one. */
  rule?: AccessControl;
  /** Whether an identity is needed where the rule does not say. */
  enabled: boolean;
}

/** One request, resolved once; every later step (cross-site guard, gate, answer) reads this. */
export interface ResolvedRequest {
  /** The decoded path (the raw path when it did not decode). */
  path: string;
  target: RequestTarget;
  /** Absent when no authentication applies to the request. */
  access?: Access;
  /** Origins whose pages may write to what the request reaches. */
  cors: readonly string[];
}

/**
 * Resolves requests against a reactor's mounts: decodes the path once, matches the mount,
 * and looks the path up in the route table, all synchronously.
 */
export class RequestResolver {
  /** The reactor's own endpoints accept the identities of every mount that enables authentication. */
  private readonly reactorAuths: readonly MountAuth[];
  private readonly mountAuths = new Map<MountAuth, readonly MountAuth[]>();
  /**
   * Every OAuth2 mount's login, callback and logout, whichever mount's path they lie
   * under: a mount at `/auth` must not take the root mount's `/auth/login`.
   */
  private readonly signIns = new Map<string, { auth: MountAuth; endpoint: SignInEndpoint }>();

  constructor(
    private readonly reactor: Reactor,
    /** Whether a mount answers GraphQL (it has a dataset GraphQL can serve). */
    private readonly answersGraphql: (mount: Mount) => boolean,
  ) {
    this.reactorAuths = reactor.all().flatMap((mount) => (mount.auth?.enabled ? [mount.auth] : []));
    for (const { auth } of reactor.all()) {
      if (!auth) continue;
      this.mountAuths.set(auth, [auth]);
      // No two mounts share one of these paths: the reactor refuses that at start (Reactor.mount).
      for (const [path, endpoint] of signInPaths(auth)) this.signIns.set(path, { auth, endpoint });
    }
  }

  /** `url`: the target as sent, whose query `/package/<name>/...` reads (`?mount=`); nothing else does. */
  resolve(method: string, rawPath: string, url = rawPath): ResolvedRequest {
    if (rawPath === WHOLE_SERVER_TARGET && method === 'OPTIONS') return { path: rawPath, target: { kind: 'server-options' }, cors: this.reactor.settings.cors ?? [] };
    const parsed = normalizeRequestPath(rawPath);
    if (!parsed.ok) {
      const error = parsed.status === 414 ? new RequestPathTooLongError(parsed.reason) : new BadRequestPathError(parsed.reason);
      return { path: rawPath, target: { kind: 'refused', error }, cors: this.reactor.settings.cors ?? [] };
    }
    const { path } = parsed;
    const probe = HEALTH_PATHS[path as keyof typeof HEALTH_PATHS];
    if (probe) return { path, target: { kind: 'health', probe }, cors: this.reactor.settings.cors ?? [] };
    if (path.startsWith(GRAPHIQL_ASSETS_PATH)) return { path, target: { kind: 'graphiql', file: path.slice(GRAPHIQL_ASSETS_PATH.length) }, cors: this.reactor.settings.cors ?? [] };
    if (path.startsWith(API_DOCS_ASSETS_PATH)) return { path, target: { kind: 'api-docs-asset', file: path.slice(API_DOCS_ASSETS_PATH.length) }, cors: this.reactor.settings.cors ?? [] };
    if (path === METRICS_PATH) {
      const access = this.reactor.settings.metricsPublic || this.reactorAuths.length === 0 ? {} : { access: { auths: this.reactorAuths, enabled: true } };
      return { path, target: { kind: 'metrics' }, cors: this.reactor.settings.cors ?? [], ...access };
    }
    const signIn = this.signIns.size > 0 ? this.signIns.get(path) : undefined;
    const owner = signIn && this.reactor.all().find((candidate) => candidate.auth === signIn.auth);
    if (signIn && owner) return { path, target: { kind: 'auth', mount: owner, endpoint: signIn.endpoint }, cors: owner.cors };
    const match = this.reactor.mounts.match(path);
    const mount = match?.mount;
    if (REACTOR_PATHS.test(path)) {
      const reactorPath = this.reactorPath(method, path, url);
      if (reactorPath) return reactorPath;
    }
    if (!match || !mount) return { path, target: { kind: 'refused', error: new ResourceNotFoundError(`nothing is mounted at ${path}`) }, cors: mount?.cors ?? this.reactor.settings.cors ?? [] };
    const reading = method === 'GET' || method === 'HEAD';
    // A mount's root without its slash (`/docs` for `/docs/`) would serve its index at a URL its relative links misread.
    if (match.bare && reading) return this.withAccess(path, mount, { kind: 'redirect', mount, location: match.prefix }, match.path);
    // Writes keep the client's spelling: one to another spelling of a name is refused as a conflict.
    const below = reading ? mount.pkg.spelled(match.path) : match.path;
    return this.withAccess(path, mount, this.mounted(method, mount, below), below);
  }

  /** The mount's identities and the rule of what `below` (the path under the mount) reaches, where it authenticates. */
  private withAccess(path: string, mount: Mount, target: RequestTarget, below: string): ResolvedRequest {
    const auth = mount.auth;
    if (!auth) return { path, target, cors: mount.cors };
    return { path, target, cors: mount.cors, access: { auths: this.mountAuths.get(auth)!, enabled: auth.enabled, ...ruleOf(mount, target, below) } };
  }

  /**
   * Introspection and `/package/<name>/<endpoint>`: the reactor's own. Any other path
   * under these prefixes is a mount's path like any other (undefined), its own
   * identities and rules included: a package may hold `content/auth/` or be mounted at `/package`.
   */
  private reactorPath(method: string, path: string, url: string): ResolvedRequest | undefined {
    const endpoint = PACKAGE_ENDPOINT_PATH.exec(path);
    if (!endpoint && !isIntrospectionPath(path)) return undefined;
    // The path is decoded already: decoding it again would read `%25` as an escape, and throw on `%`.
    const { mount: owner, problem } = endpoint ? this.packageMount(method, endpoint[1]!, endpoint[2]!, url) : {};
    // `/package/<name>/...` is that package's: only its own mount's identities, where it enables authentication.
    const auths = owner?.auth?.enabled ? this.mountAuths.get(owner.auth)! : this.reactorAuths;
    const access = auths.length > 0 ? { auths, enabled: true } : undefined;
    // The reactor's own reports are no mount's: a mount's `cors` origins are for that mount alone.
    const cors = (owner ? owner.cors : undefined) ?? this.reactor.settings.cors ?? [];
    const target: RequestTarget = endpoint ? { kind: 'package', name: endpoint[1]!, endpoint: endpoint[2]!, ...(owner ? { mount: owner } : {}), ...(problem ? { problem } : {}) } : { kind: 'introspection', report: path as IntrospectionPath };
    return { path, target, cors, ...(access ? { access } : {}) };
  }

  /**
   * The mount `/package/<name>/...` is about: the one `?mount=<path>` names, else the
   * package's only one. A save must say which of several, since each has its own overlay
   * (saving the first one's alone left the others' writes in no package); status,
   * metadata and logs answer for the first.
   */
  private packageMount(method: string, name: string, endpoint: string, url: string): { mount?: Mount; problem?: PackageError } {
    const mounts = this.reactor.mountsNamed(name);
    if (mounts.length === 0) return {};
    const query = url.indexOf('?');
    const asked = query < 0 ? [] : new URLSearchParams(url.slice(query + 1)).getAll('mount');
    const listed = mounts.map((mount) => mount.prefix).join(', ');
    if (asked.length > 1) return { problem: new InvalidQueryError('mount is given more than once') };
    if (asked.length === 1) {
      const prefix = `/${asked[0]!}/`.replace(/^\/+/, '/').replace(/\/+$/, '/');
      const mount = mounts.find((candidate) => candidate.prefix === prefix);
      return mount ? { mount } : { problem: new ResourceNotFoundError(`package ${name} is not mounted at ${asked[0]}; it is mounted at ${listed}`) };
    }
    if (mounts.length > 1 && endpoint === 'save' && method === 'POST') {
      return { problem: new AmbiguousPackageError(`package ${name} is mounted at ${listed}, each with its own overlay: say which to save, as in POST /package/${name}/save?mount=${mounts[1]!.prefix}`) };
    }
    return { mount: mounts[0] };
  }

  /** A path below a mount: the data API, GraphQL, a write, a dataset or handler route, or a file; nothing of a package out of service. */
  private mounted(method: string, mount: Mount, path: string): RequestTarget {
    // A package found tampered (`--verify lazy`) answers nothing more, cached answers included.
    const outOfService = mount.pkg.outOfService;
    if (outOfService) return { kind: 'refused', error: outOfService };
    if (path.startsWith(DATA_API_PREFIX)) return dataTarget(mount, path.slice(DATA_API_PREFIX.length));
    if (path === GRAPHQL_PATH && this.answersGraphql(mount)) return { kind: 'graphql', mount };
    if (path === OPENAPI_PATH || path === API_PAGE_PATH) return { kind: 'openapi', mount, page: path === API_PAGE_PATH };
    const reading = method === 'GET' || method === 'HEAD';
    if (reading) {
      // The hot path: a cached lookup already says what the path is.
      const cached = mount.pkg.cached(path);
      if (cached?.kind === 'hit') return { kind: 'file', mount, path, file: cached.file };
    }
    const route = mount.pkg.routes.lookup(path);
    if (route?.kind === 'dataset') return { kind: 'data', mount, dataset: route.dataset };
    if (route?.kind === 'handler') return handlerRefused(route.route);
    if (reading && route === undefined && mount.pkg.isFolderWithIndex(path)) return { kind: 'redirect', mount, location: `${mount.prefix.slice(0, -1)}${path}/` };
    // The API page is the reactor's folder index: `/api/v1` is sent to it like any folder, unless the package serves that path itself.
    if (reading && route === undefined && `${path}/` === API_PAGE_PATH && !mount.pkg.holdsFile(path)) return { kind: 'redirect', mount, location: `${mount.prefix.slice(0, -1)}${API_PAGE_PATH}` };
    return reading ? { kind: 'file', mount, path } : { kind: 'content', mount, path };
  }
}

/** `<dataset>`, `<dataset>/<id>`, or `<dataset>/<id>/history`: an item's versions. */
function dataTarget(mount: Mount, rest: string): RequestTarget {
  const slash = rest.indexOf('/');
  if (slash < 0) return { kind: 'data', mount, dataset: rest };
  const dataset = rest.slice(0, slash);
  const item = rest.slice(slash + 1);
  const history = /^([^/]+)\/history$/.exec(item);
  return history ? { kind: 'data', mount, dataset, item: history[1]!, history: true } : { kind: 'data', mount, dataset, item };
}

function handlerRefused(route: Route): RequestTarget {
  return { kind: 'refused', error: new HandlerNotSupportedError(`${route.method ?? 'GET'} ${route.path} runs handler ${route.handler}, code another implementation runs; this reactor serves files and datasets only`) };
}

/** The rule of what the path reaches: below `/api/v1/data/`, the rule of that dataset's route; else the route's. */
function ruleOf(mount: Mount, target: RequestTarget, path: string): { rule?: AccessControl } {
  const rule = target.kind === 'data' && path.startsWith(DATA_API_PREFIX) ? mount.auth?.datasetRules.get(target.dataset) : mount.pkg.routes.ruleOf(path);
  return rule ? { rule } : {};
}
