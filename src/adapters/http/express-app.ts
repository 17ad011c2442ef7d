import express, { type NextFunction, type Request, type Response } from 'express';
import type { Mount, Reactor } from '../../application/serving/reactor.js';
import { badRequest, methodNotAllowed, notFound, sendJson, sendProblem } from './http-problems.js';
import { resolveRequest } from './request-resolution.js';
import { writeStatic } from './static-responder.js';

const DEFAULT_LOG_LINES = 100;
const MAX_LOG_LINES = 1000;

/**
 * Everything that is not a static hit: introspection, the per-package endpoints, the
 * data API, and the 404/405 answers. Static GET/HEAD hits never reach it; the
 * reactor server answers them ahead of express's router.
 */
export function createExpressApp(reactor: Reactor): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  const reports: Record<string, () => unknown> = {
    '/api/v1/introspect/metadata': () => reactor.metadataReport(),
    '/api/v1/introspect/routes': () => reactor.routesReport(),
    '/api/v1/introspect/content-hashes': () => reactor.contentHashesReport(),
    '/api/v1/introspect/content-validity': () => reactor.contentValidityReport(),
    '/introspect/status': () => reactor.status(),
    '/introspect/config': () => reactor.config(),
    '/introspect/metrics': () => reactor.metrics(),
  };
  for (const [path, report] of Object.entries(reports)) {
    app.get(path, async (_request, response) => sendJson(response, 200, await report()));
    app.all(path, () => {
      throw methodNotAllowed('GET, HEAD');
    });
  }

  const packageReports: Record<string, (mount: Mount, request: Request) => unknown> = {
    status: (mount) => ({ package: mount.pkg.name, version: mount.pkg.model.metadata.version, status: 'loaded', valid: reactor.lastKnownValid(mount) }),
    metadata: ({ pkg: { model } }) => ({ name: model.metadata.name, version: model.metadata.version, description: model.metadata.description, author: model.metadata.author ?? null, guid: model.metadata.guid }),
    logs: (mount, request) => ({ package: mount.pkg.name, logs: reactor.log.last(logLines(request.query.lines)) }),
  };
  app.all('/package/:name/:item', (request, response) => {
    const mount = reactor.byName(String(request.params.name));
    const report = packageReports[String(request.params.item)];
    if (!mount) throw notFound(`no package named ${request.params.name}`);
    if (!report) throw notFound(`no endpoint /package/${request.params.name}/${request.params.item}`);
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed('GET, HEAD');
    sendJson(response, 200, report(mount, request));
  });

  app.use(async (request, response) => {
    const resolution = await resolveRequest(reactor, request, pathOf(request.originalUrl));
    if (resolution.kind === 'problem') throw resolution.problem;
    if (resolution.kind === 'data') return dataApi(resolution.mount, resolution.rest, request, response);
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed('GET, HEAD');
    return writeStatic(request, response, resolution.response);
  });

  app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => sendProblem(response, error));
  return app;
}

function dataApi(mount: Mount, rest: string, request: Request, response: Response): void {
  const id = rest.split('/')[0]!;
  if (!mount.datasets.has(id)) throw notFound(`no dataset ${id}`);
  if (rest !== id) throw notFound(`no item ${rest.slice(id.length + 1)} in dataset ${id}`);
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed('GET, HEAD');
  const collection = mount.datasets.collection(id)!;
  const { items } = collection;
  const headers: Record<string, string | number> = items ? { 'X-Total-Count': items.length } : {};
  const { limit, offset } = request.query;
  if ((limit !== undefined || offset !== undefined) && items) {
    const start = pageNumber(offset, 'offset') ?? 0;
    const count = pageNumber(limit, 'limit') ?? items.length;
    return sendJson(response, 200, items.slice(start, start + count), headers);
  }
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': collection.body.length, 'Cache-Control': 'no-store', ...headers });
  response.end(request.method === 'HEAD' ? undefined : collection.body);
}

function pageNumber(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw badRequest('BAD_QUERY', `${name} must be a non-negative integer`);
  return number;
}

function logLines(value: unknown): number {
  if (value === undefined) return DEFAULT_LOG_LINES;
  const number = Number(value);
  if (!Number.isFinite(number)) throw badRequest('BAD_QUERY', 'lines must be a number');
  return Math.min(MAX_LOG_LINES, Math.max(1, Math.floor(number)));
}

export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
