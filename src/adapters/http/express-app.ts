import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { DEFAULT_BODY_LIMIT, type Mount, type Reactor } from '../../application/serving/reactor.js';
import { badRequest, methodNotAllowed, notFound, sendJson, sendProblem } from './http-problems.js';
import { readBody } from './request-body.js';
import { writeStatic } from './static-responder.js';
import { contextOf } from './request-context.js';
import { preconditionsOf } from './preconditions.js';
import { wholeNumber } from '../../domain/data/collection-query.js';
import type { Identity } from '../../domain/auth/access.js';

const DEFAULT_LOG_LINES = 100;
const MAX_LOG_LINES = 1000;

/**
 * Everything that is not a static file or a data read: introspection, the per-package
 * endpoints, data and content writes, GraphQL and save. The reactor server resolved the
 * request already; this answers the target its context names.
 */
export function createExpressApp(reactor: Reactor, graphql: ReadonlyMap<Mount, RequestHandler>, identityAt?: IdentityAt): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const bodyLimit = reactor.settings.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const reading = (request: Request) => request.method === 'GET' || request.method === 'HEAD';

  app.use(async (request, response, next) => {
    const { target } = contextOf(request);
    switch (target.kind) {
      case 'introspection': {
        if (!reading(request)) throw methodNotAllowed('GET, HEAD');
        // The routes report is the one that shows each requester only what it may use.
        const who = identityAt && target.report === '/api/v1/introspect/routes' ? await identitiesAt(reactor, request, identityAt) : undefined;
        return sendJson(response, 200, await reactor.introspect(target.report, who));
      }
      case 'package': {
        const { mount, endpoint, problem } = target;
        if (problem) throw problem;
        if (!mount) throw notFound(`no package named ${target.name}`);
        if (endpoint === 'save') {
          if (request.method !== 'POST') throw methodNotAllowed('POST');
          return sendJson(response, 200, await reactor.save(mount));
        }
        const report = endpoint === 'status' ? () => reactor.packageStatus(mount) : endpoint === 'metadata' ? () => reactor.packageMetadata(mount) : endpoint === 'logs' ? () => reactor.packageLogs(mount, logLines(request.query.lines)) : undefined;
        if (!report) throw notFound(`no endpoint /package/${target.name}/${endpoint}`);
        if (!reading(request)) throw methodNotAllowed('GET, HEAD');
        return sendJson(response, 200, await report());
      }
      case 'graphql':
        return graphql.get(target.mount)!(request, response, next);
      case 'data':
        // Reads and writes alike are the reactor server's own (see `ReactorServer.answer`).
        throw new Error('a dataset request reached the express app');
      case 'content':
        return writeContent(target.mount, target.path, request, response, bodyLimit);
      case 'file':
        if (target.file) return writeStatic(request, response, target.file);
        throw notFound(`no route or file for ${request.path}`);
      case 'refused':
        throw target.error;
      case 'auth':
        throw notFound(`${request.path} is answered by the login endpoints`);
    }
  });

  app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => sendProblem(response, error));
  return app;
}

/** The request's identity as each mount with authentication knows it (the auth gate's), for a report that shows each mount what this requester may use there. */
export type IdentityAt = (mount: Mount, request: Request) => Identity | undefined | Promise<Identity | undefined>;

async function identitiesAt(reactor: Reactor, request: Request, identityAt: IdentityAt): Promise<(mount: Mount) => Identity | undefined> {
  const mounts = reactor.all().filter((mount) => mount.auth);
  const identities = new Map(await Promise.all(mounts.map(async (mount) => [mount, await identityAt(mount, request)] as const)));
  return (mount) => identities.get(mount);
}

/** PUT writes a text file into the package's overlay, DELETE tombstones it; either only when its If-Match and If-None-Match hold. */
async function writeContent(mount: Mount, path: string, request: Request, response: Response, bodyLimit: number): Promise<void> {
  const fullPath = mount.prefix.slice(0, -1) + path;
  if (request.method === 'DELETE') {
    await mount.content.delete(path, preconditionsOf(request));
    response.writeHead(204, { 'Cache-Control': 'no-store' });
    response.end();
    return;
  }
  if (request.method !== 'PUT') throw methodNotAllowed(mount.content.writable ? 'GET, HEAD, PUT, DELETE' : 'GET, HEAD');
  mount.content.assertWritable();
  const body = await readBody(request, bodyLimit);
  const written = await mount.content.put(path, body, request.headers['content-type'], preconditionsOf(request));
  sendJson(response, 200, { path: fullPath, resource: written.resource });
}

/** `?lines=N`: 1 or more, at most the ring's 1000; `0`, `-1`, `1.5` or an empty value is refused, not read as some other count. */
function logLines(value: unknown): number {
  if (value === undefined) return DEFAULT_LOG_LINES;
  if (typeof value !== 'string') throw badRequest('BAD_QUERY', 'lines is given more than once');
  return Math.min(MAX_LOG_LINES, wholeNumber(value, 'lines', 1));
}
