import { API_PAGE_PATH, DATA_API_PREFIX, OPENAPI_PATH, type Route, type Routes } from '../package/routes.js';
import { GRAPHQL_PATH, reactorOwnerAtRoot } from '../serving/reactor-paths.js';

/** Where the package is served: whether at the host's root (where the reactor's own endpoints lie), and whether it has datasets (then GraphQL answers at its `/graphql`). */
export interface ServedAt {
  root: boolean;
  datasets: boolean;
}

/**
 * Routes whose path the reactor answers itself, before any route: the health probes,
 * metrics, introspection and GraphiQL files at the host's root; the data API, GraphQL and
 * the API description at every mount. Such a route is never served: said, rather than
 * ignored unsaid (a page at `/healthz` or `/api/v1/data/articles` that answers something else).
 */
export function reactorPathRouteWarnings(routes: Routes, at: ServedAt): string[] {
  const warnings: string[] = [];
  for (const route of routes.routes) {
    const served = route.remap ?? route.path;
    const owner = ownerOf(route, served, at);
    if (owner === undefined) continue;
    const named = served === route.path ? JSON.stringify(served) : `${JSON.stringify(route.path)} (remapped to ${JSON.stringify(served)})`;
    warnings.push(`route ${named} is never served: the reactor answers that path itself (${owner})`);
  }
  return warnings;
}

function ownerOf(route: Route, served: string, at: ServedAt): string | undefined {
  const owner = at.root ? reactorOwnerAtRoot(served) : undefined;
  if (owner) return `${owner}, where the package is mounted at /`;
  if (served === OPENAPI_PATH || served === API_PAGE_PATH) return 'the data API description';
  if (at.datasets && served === GRAPHQL_PATH) return 'GraphQL';
  if (!served.startsWith(DATA_API_PREFIX)) return undefined;
  const id = served.slice(DATA_API_PREFIX.length).split('/')[0];
  if (route.dataset === undefined) return `the data API of dataset ${id}`;
  return route.dataset === id && !served.slice(DATA_API_PREFIX.length).includes('/') ? undefined : `the data API of dataset ${id}, not ${route.dataset}`;
}
