/** The reactor's own reports, answered at any mount, by the path that asks for each. */
export const INTROSPECTION_PATHS = [
  '/api/v1/introspect/metadata',
  '/api/v1/introspect/routes',
  '/api/v1/introspect/content-hashes',
  '/api/v1/introspect/content-validity',
  '/introspect/status',
  '/introspect/config',
  '/introspect/metrics',
] as const;
export type IntrospectionPath = (typeof INTROSPECTION_PATHS)[number];

export function isIntrospectionPath(path: string): path is IntrospectionPath {
  return (INTROSPECTION_PATHS as readonly string[]).includes(path);
}

/** `/package/<name>/<endpoint>`: one package's own endpoints. */
export const PACKAGE_ENDPOINTS = ['status', 'metadata', 'logs', 'save'] as const;
export type PackageEndpoint = (typeof PACKAGE_ENDPOINTS)[number];

export function isPackageEndpoint(name: string): name is PackageEndpoint {
  return (PACKAGE_ENDPOINTS as readonly string[]).includes(name);
}

/** `/package/<name>/<endpoint>` for the endpoints there are (the name, the endpoint): any other path there is a mount's. */
export const PACKAGE_ENDPOINT_PATH = new RegExp(`^/package/([^/]+)/(${PACKAGE_ENDPOINTS.join('|')})$`);

/** Paths the reactor itself answers at any mount: gated whenever any mount enables authentication. */
export const REACTOR_PATHS = /^\/(api\/v1\/introspect\/|introspect\/|package\/|auth\/)/;

export const GRAPHQL_PATH = '/graphql';

/** The methods the reactor answers at some path: what `OPTIONS *` and CORS preflights announce. */
export const REACTOR_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';

/** The asterisk-form target of `OPTIONS *`: the server as a whole, no path of it (RFC 9110 §9.3.7). */
export const WHOLE_SERVER_TARGET = '*';

/** Probes an orchestrator sends: always open, and they reveal nothing but `ok` or what is failing. */
export const HEALTH_PATHS = { '/healthz': 'live', '/readyz': 'ready' } as const;
export type HealthProbe = (typeof HEALTH_PATHS)[keyof typeof HEALTH_PATHS];

/** Prometheus's scrape path: behind authentication where any mount enables it, unless `--metrics-public`. */
export const METRICS_PATH = '/metrics';

/**
 * GraphiQL's scripts and styles, which the reactor itself serves (never a CDN): one fixed
 * path from the host root, whatever the mounts, answered before a request is resolved.
 */
export const GRAPHIQL_ASSETS_PATH = '/__pkg/graphiql/';

/** The API page's scripts and styles (Swagger UI), served the same way. */
export const API_DOCS_ASSETS_PATH = '/__pkg/api-docs/';

/**
 * What the reactor answers itself at a path from the host's root, before any mount is
 * matched (named for a warning); undefined for a path the mounts share out.
 */
export function reactorOwnerAtRoot(path: string): string | undefined {
  if (path in HEALTH_PATHS) return 'its health probe';
  if (path === METRICS_PATH) return 'its metrics';
  if (path.startsWith(GRAPHIQL_ASSETS_PATH) || path.startsWith(API_DOCS_ASSETS_PATH)) return 'its bundled assets';
  if (isIntrospectionPath(path) || PACKAGE_ENDPOINT_PATH.test(path)) return 'introspection';
  return undefined;
}
