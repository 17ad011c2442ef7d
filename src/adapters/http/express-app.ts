import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { DEFAULT_BODY_LIMIT, type Mount, type Reactor } from '../../application/serving/reactor.js';
import { badRequest, methodNotAllowed, notFound, sendJson, sendProblem } from './http-problems.js';
import { pathOf, resolveRequest } from './request-resolution.js';
import { readData } from './data-api.js';
import { readBody, writeData } from './data-writes.js';
import { writeStatic } from './static-responder.js';

const DEFAULT_LOG_LINES = 100;
const MAX_LOG_LINES = 1000;

/**
 * Everything that is not a static hit or a data read: introspection, the per-package
 * endpoints, data and content writes, GraphQL and save, and the 404/405 answers.
 * Static GET/HEAD hits and data reads never reach it; the reactor server answers them
 * ahead of express's router.
 */
export function createExpressApp(reactor: Reactor, graphql: ReadonlyMap<Mount, RequestHandler>): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const bodyLimit = reactor.settings.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const graphqlMounts = new Set(graphql.keys());

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
  app.all('/package/:name/:item', async (request, response) => {
    const mount = reactor.byName(String(request.params.name));
    const item = String(request.params.item);
    if (!mount) throw notFound(`no package named ${request.params.name}`);
    if (item === 'save') {
      if (request.method !== 'POST') throw methodNotAllowed('POST');
      return sendJson(response, 200, await reactor.save(mount));
    }
    const report = packageReports[item];
    if (!report) throw notFound(`no endpoint /package/${request.params.name}/${item}`);
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed('GET, HEAD');
    sendJson(response, 200, report(mount, request));
  });

  app.use(async (request, response, next) => {
    const resolution = await resolveRequest(reactor, request, pathOf(request.originalUrl), graphqlMounts);
    switch (resolution.kind) {
      case 'problem':
        throw resolution.problem;
      case 'graphql':
        return graphql.get(resolution.mount)!(request, response, next);
      case 'data':
        if (request.method === 'GET' || request.method === 'HEAD') return readData(resolution.mount, resolution.rest, request, response);
        return writeData(resolution.mount, resolution.rest, request, response, bodyLimit);
      case 'content':
        return writeContent(resolution.mount, resolution.path, request, response, bodyLimit);
      case 'hit':
        return writeStatic(request, response, resolution.response);
    }
  });

  app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => sendProblem(response, error));
  return app;
}

/** PUT writes a text file into the package's overlay, DELETE tombstones it. */
async function writeContent(mount: Mount, path: string, request: Request, response: Response, bodyLimit: number): Promise<void> {
  const fullPath = mount.prefix.slice(0, -1) + path;
  if (request.method === 'DELETE') {
    await mount.content.delete(path);
    response.writeHead(204, { 'Cache-Control': 'no-store' });
    response.end();
    return;
  }
  if (request.method !== 'PUT') throw methodNotAllowed(mount.content.writable ? 'GET, HEAD, PUT, DELETE' : 'GET, HEAD');
  mount.content.assertWritable();
  const body = await readBody(request, response, bodyLimit);
  const written = await mount.content.put(path, body, request.headers['content-type']);
  sendJson(response, 200, { path: fullPath, resource: written.resource });
}

function logLines(value: unknown): number {
  if (value === undefined) return DEFAULT_LOG_LINES;
  const number = Number(value);
  if (!Number.isFinite(number)) throw badRequest('BAD_QUERY', 'lines must be a number');
  return Math.min(MAX_LOG_LINES, Math.max(1, Math.floor(number)));
}
