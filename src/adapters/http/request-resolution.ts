import type { IncomingMessage } from 'node:http';
import { DATA_API_PREFIX, type Route } from '../../domain/package/routes.js';
import { normalizeRequestPath } from '../../domain/serving/request-path.js';
import type { Mount, Reactor } from '../../application/serving/reactor.js';
import type { StaticLookup, StaticResponse } from '../../application/serving/served-package.js';
import { HttpProblem, notFound, problemOf } from './http-problems.js';
import { HandlerNotSupportedError } from '../../domain/errors.js';

/** What a request path under the mounts comes to, decided once per request. */
export type Resolution =
  | { kind: 'hit'; response: StaticResponse }
  /** The data API: `rest` is what follows `/api/v1/data/`, or a dataset route's dataset id. */
  | { kind: 'data'; mount: Mount; rest: string }
  /** `<mount>/graphql` of a mount that answers GraphQL. */
  | { kind: 'graphql'; mount: Mount }
  /** A content write (PUT, DELETE) to a path below a mount. */
  | { kind: 'content'; mount: Mount; path: string }
  | { kind: 'problem'; problem: HttpProblem };

export const GRAPHQL_PATH = '/graphql';

/** Resolutions express goes on to answer; hits and problems are answered at once. */
const forExpress = new WeakMap<IncomingMessage, Resolution>();

/**
 * Decodes, matches the mount and looks the path up, once per request. `graphql` holds
 * the mounts that answer GraphQL; for the others `/graphql` is an ordinary path.
 */
export function resolveRequest(reactor: Reactor, request: IncomingMessage, path: string, graphql: ReadonlySet<Mount>): Resolution | Promise<Resolution> {
  const known = forExpress.get(request);
  if (known) return known;
  const parsed = normalizeRequestPath(path);
  if (!parsed.ok) return { kind: 'problem', problem: new HttpProblem(parsed.status, 'BAD_PATH', parsed.reason) };
  const match = reactor.mounts.match(parsed.path);
  if (!match) return { kind: 'problem', problem: notFound(`nothing is mounted at ${parsed.path}`) };
  const { mount } = match;
  if (match.path.startsWith(DATA_API_PREFIX)) return keep(request, { kind: 'data', mount, rest: match.path.slice(DATA_API_PREFIX.length) });
  if (match.path === GRAPHQL_PATH && graphql.has(mount)) return keep(request, { kind: 'graphql', mount });
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const target = mount.pkg.routes.lookup(match.path);
    if (target?.kind === 'dataset') return keep(request, { kind: 'data', mount, rest: target.dataset });
    if (target?.kind === 'handler') return handlerProblem(target.route);
    return keep(request, { kind: 'content', mount, path: match.path });
  }
  const cached = mount.pkg.cached(match.path);
  // The hot path: a cached hit already has the resolution's shape.
  if (cached?.kind === 'hit') return cached;
  const settle = (found: StaticLookup): Resolution => {
    if (found.kind === 'hit') return found;
    if (found.kind === 'dataset') return keep(request, { kind: 'data', mount, rest: found.dataset });
    if (found.kind === 'handler') return handlerProblem(found.route);
    return { kind: 'problem', problem: notFound(`no route or file for ${parsed.path}`) };
  };
  return cached ? settle(cached) : mount.pkg.lookup(match.path).then(settle);
}

function handlerProblem(route: Route): Resolution {
  return { kind: 'problem', problem: problemOf(new HandlerNotSupportedError(`${route.method ?? 'GET'} ${route.path} runs handler ${route.handler}, code another implementation runs; this reactor serves files and datasets only`)) };
}

function keep(request: IncomingMessage, resolution: Resolution): Resolution {
  forExpress.set(request, resolution);
  return resolution;
}

export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
