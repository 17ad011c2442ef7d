import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import { DEFAULT_BODY_LIMIT, DEFAULT_SHUTDOWN_TIMEOUT, type Mount, type Reactor } from '../../application/serving/reactor.js';
import { RequestResolver, type RequestTarget } from '../../application/serving/request-target.js';
import type { DatasetView } from '../../application/auth/dataset-access.js';
import type { Dataset } from '../../application/data/dataset.js';
import { LIVE_RELOAD_PATH } from '../../application/serving/served-package.js';
import { ResourceNotFoundError } from '../../domain/errors.js';
import { API_DOCS_ASSETS_PATH, GRAPHIQL_ASSETS_PATH, REACTOR_METHODS } from '../../domain/serving/reactor-paths.js';
import { urlPathOf } from '../../domain/serving/request-path.js';
import { readData } from './data-api.js';
import { readThePast, readsThePast } from './data-history.js';
import { graphqlDatasets } from './graphql/graphql-datasets.js';
import type { BundledAssets } from './bundled-assets.js';
import { lazyGraphqlEndpoint } from './graphql/lazy-graphql.js';
import { methodNotAllowed, refusedUnlessRead, sendProblem } from './http-problems.js';
import { pipelinedTooDeep } from './pipelining-limit.js';
import { MAX_HEAD_BYTES, answerClientError, malformedHead, refuseOnSocket, refusedOnSocket } from './malformed-requests.js';
import { writeStatic } from './static-responder.js';
import type * as DataWrites from './data-writes.js';
import { AuthGate } from './auth/auth-gate.js';
import { CrossSiteGuard } from './cross-site-guard.js';
import { LiveReloadStream } from './live-reload-stream.js';
import { attachContext, type RequestContext } from './request-context.js';
import { AccessLog, clientOf } from './observability/access-log.js';
import { RequestMetrics } from './observability/request-metrics.js';


/**
 * The reactor's HTTP front door and its one request pipeline: each request is resolved
 * once (`RequestResolver`) into a context kept on the request, then meets the cross-site
 * guard, the auth gate, and is answered: static files and data reads here, from the
 * precomputed lookups and the datasets' cached bytes, and data writes; everything else by
 * the express app, which reads the same context. One access-log line per request, written here.
 */
export class ReactorServer {
  /** Loaded on the first request that needs it; see `app`. */
  private express: Promise<RequestListener> | undefined;
  private dataWrites: Promise<typeof DataWrites> | undefined;
  private readonly bodyLimit: number;
  private readonly server: Server;
  private readonly access: AccessLog;
  readonly metrics: RequestMetrics;
  /** Numbers of requests with ids (JSON log lines): an id is the access log's prefix and this. */
  private requestCount = 0;
  /** Set by `close`: connections are closed as soon as their answer is written. */
  private closing = false;
  private readonly resolver: RequestResolver;
  /** The mounts that answer GraphQL: those with a JSON dataset. */
  private readonly graphql = new Map<Mount, RequestHandler>();
  /** Absent when no mount enables authentication or restricts a route: then nothing is checked. */
  private readonly gate: AuthGate | undefined;
  private readonly guard: CrossSiteGuard;
  private readonly liveReload: LiveReloadStream | undefined;
  /** GraphiQL's and the API page's files, each set loaded on the first request for one; see `serveBundledAsset`. */
  private readonly bundledAssets = new Map<'graphiql' | 'api-docs', Promise<BundledAssets>>();

  constructor(
    private readonly reactor: Reactor,
    options: { log?: (text: string) => void; quiet?: boolean; accessLogWorker?: URL } = {},
  ) {
    this.guard = new CrossSiteGuard(reactor);
    this.gate = AuthGate.of(reactor, this.guard);
    this.bodyLimit = reactor.settings.bodyLimit ?? DEFAULT_BODY_LIMIT;
    for (const mount of reactor.all()) {
      const dataSets = mount.pkg.model.storage?.dataSets ?? {};
      if (graphqlDatasets(mount.datasets, dataSets).length === 0) continue;
      const gate = mount.auth ? this.gate : undefined;
      this.graphql.set(mount, lazyGraphqlEndpoint(() => mount.datasets, () => mount.pkg.model.storage?.dataSets ?? {}, { bodyLimit: this.bodyLimit, ...(gate ? { authorize: (request, datasetId) => gate.authorizeDataset(mount, request, datasetId), view: (request, ids) => gate.datasetView(mount, request, ids) } : {}) }));
    }
    this.resolver = new RequestResolver(reactor, (mount) => this.graphql.has(mount));
    this.liveReload = reactor.settings.watch && reactor.settings.liveReload ? new LiveReloadStream(reactor) : undefined;
    const { logFormat = 'text', quiet = false } = reactor.settings;
    this.access = new AccessLog(logFormat, quiet || options.quiet === true, options.log, options.accessLogWorker);
    this.metrics = new RequestMetrics(reactor);
    // requireHostHeader off: node's own refusal is a bare 400; the request is refused with the JSON body (malformedHead).
    // Timeouts are checked every 5 s, not node's 30: a request not whole in 60 s is answered 408 by 65 s.
    this.server = createServer({ maxHeaderSize: MAX_HEAD_BYTES, requestTimeout: 60_000, connectionsCheckingInterval: 5_000, requireHostHeader: false }, (request, response) => {
      if (pipelinedTooDeep(request, response)) return;
      // `--watch`: a request sent after an edit is answered from the version that holds it.
      const reloading = this.reactor.upToDate();
      if (reloading) return void reloading.then(() => this.guarded(request, response));
      this.guarded(request, response);
    });
    // A client that asks before sending its body (`Expect: 100-continue`: curl does for bodies
    // over 1 MiB) is told to go on only when the body can be taken; one declared over the limit
    // is refused (413, where the body would be read) without being sent, and the connection
    // then closes, since the body it announced never follows.
    this.server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
      if (Number(request.headers['content-length']) > this.bodyLimit) response.setHeader('Connection', 'close');
      else response.writeContinue();
      this.server.emit('request', request, response);
    });
    this.server.on('clientError', answerClientError);
    // An expectation other than 100-continue is ignored (RFC 9110 §10.1.1 lets a server answer 417; node's is a bare one).
    this.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => this.server.emit('request', request, response));
    // Tunnels are a proxy's: node, unheard, closes the connection without a word.
    this.server.on('connect', (_request: IncomingMessage, socket: Duplex) => refuseOnSocket(socket, 400, 'BAD_REQUEST', 'CONNECT asks a proxy for a tunnel; this is an origin server'));
    this.server.keepAliveTimeout = 65_000;
    // A client that half-closes once its request is sent (`printf ... | nc -N`, health
    // checkers, HTTP/1.0 tools) still gets its answer: node's default drops every answer
    // not written by the time the client's FIN is read, which is any answer that waits on
    // a read, a hash or a write. (Node's own switch for it, on every http.Server.)
    (this.server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  }

  /** A fault in answering one request is that request's 500, never the end of the process. */
  private guarded(request: IncomingMessage, response: ServerResponse): void {
    try {
      this.handle(request, response);
    } catch (error) {
      sendProblem(response, error);
    }
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    // A double, not hrtime's bigint: three heap numbers a request fewer.
    const started = performance.now();
    const sentBefore = request.socket.bytesWritten;
    const method = request.method ?? 'GET';
    const url = request.url?.charCodeAt(0) === 0x2f ? request.url : originForm(request);
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const malformed = malformedHead(request);
    // An event stream is only read: another method there is no package's path either.
    if (this.liveReload && path === LIVE_RELOAD_PATH && malformed === undefined) return method === 'GET' ? this.liveReload.add(response) : sendProblem(response, methodNotAllowed('GET'));
    const context: RequestContext = malformed === undefined ? this.resolver.resolve(method, path, url) : { path, target: { kind: 'refused', error: malformed }, cors: [] };
    attachContext(request, context);
    const count = this.access.withIds ? ++this.requestCount : 0;
    const id = count > 0 ? this.access.idPrefix + count : undefined;
    // Node writes a header array in one go only when no header was set before it: a plain
    // static read carries its id in that array; everything else sets it here. (Passed along,
    // not kept on the context: an added property would change the context's shape on the hot path.)
    let inline: readonly string[] | undefined;
    if (id) {
      if (plainStaticRead(context, request)) inline = ['X-Request-Id', id];
      else response.setHeader('X-Request-Id', id);
    }
    const at = { method, path, started, sentBefore, count };
    // A pipelined request's answer waits for the socket until the answers before it are sent: its bytes count from then.
    if (!response.socket) response.once('socket', (socket: Duplex & { bytesWritten: number }) => (at.sentBefore = socket.bytesWritten));
    this.pass(context, request, response, inline);
    // A body from memory is written by now: recorded without a per-request listener. Others
    // on 'close', which follows the end of every answer and also comes when the client
    // leaves before it: a download cancelled half-way is logged and counted too, once. So is
    // an answer queued behind one not yet sent (pipelined): its bytes leave when it has the socket.
    if (response.writableEnded && response.socket) this.finished(context, request, response, at);
    else {
      // Read now, while the socket is open: node keeps it, and a client gone by the end leaves none to read.
      void request.socket.remoteAddress;
      response.once('close', () => this.finished(context, request, response, at));
    }
  }

  /** One access-log line (the ring, stdout) and the request's metrics. */
  private finished(context: RequestContext, request: IncomingMessage, response: ServerResponse, at: { method: string; path: string; started: number; sentBefore: number; count: number }): void {
    // The status sent; nginx's 499 for a client that left before one was.
    const statusCode = response.headersSent ? response.statusCode : (refusedOnSocket.get(response) ?? CLIENT_CLOSED_REQUEST);
    if (this.closing) setImmediate(() => this.server.closeIdleConnections());
    const now = Date.now();
    this.access.text(this.reactor.log.record(at.method, at.path, statusCode, now));
    const seconds = (performance.now() - at.started) / 1000;
    // Headers and body: on a keep-alive socket, answers are written one after another.
    const bytes = request.socket.bytesWritten - at.sentBefore;
    const { target } = context;
    const mount = 'mount' in target && target.mount ? target.mount.prefix : target.kind === 'refused' ? 'none' : 'reactor';
    this.metrics.record(mount, at.method, statusCode, seconds, bytes);
    if (at.count > 0) this.access.entry(at.count, now, { method: at.method, path: at.path, status: statusCode, micros: Math.round(seconds * 1e6), client: clientOf(request, this.reactor.settings.trustProxy === true), mount, bytes });
  }

  /** The guard, then the gate (which may wait for a password hash or the OAuth2 provider), then the answer. */
  private pass(context: RequestContext, request: IncomingMessage, response: ServerResponse, inline: readonly string[] | undefined): void {
    if (this.guard.screen(context, request, response)) return;
    const admitted = this.gate ? this.gate.screen(context, request, response) : true;
    if (admitted === true) return this.answerInStep(context, request, response, inline);
    if (admitted !== false)
      admitted.then((goOn) => goOn && this.answerInStep(context, request, response, inline)).catch((error: unknown) => sendProblem(response, error));
  }

  /**
   * Another reactor sharing the overlay wrote, and this one is reading it in: the request
   * is answered once that catch-up is done. Only the one under way when it arrived: under
   * a stream of writes elsewhere, a request that waited for every later one would never
   * be answered.
   */
  private answerInStep(context: RequestContext, request: IncomingMessage, response: ServerResponse, inline: readonly string[] | undefined): void {
    const { target } = context;
    const catchingUp = 'mount' in target ? target.mount?.catchingUp : undefined;
    if (catchingUp) return void catchingUp.then(() => this.answer(context, request, response, inline));
    this.answer(context, request, response, inline);
  }

  /** Static files, dataset reads and writes, and refusals here; everything else in express. */
  /** `inline`: header pairs a static answer writes with its own (see `handle`). */
  private answer(context: RequestContext, request: IncomingMessage, response: ServerResponse, inline: readonly string[] | undefined): void {
    const { target } = context;
    try {
      switch (target.kind) {
        case 'file':
          this.metrics.lookup(target.mount.prefix, target.file !== undefined);
          return this.serveFile(target, request, response, inline);
        case 'graphiql':
          return this.serveBundledAsset('graphiql', target.file, request, response);
        case 'api-docs-asset':
          return this.serveBundledAsset('api-docs', target.file, request, response);
        case 'openapi':
          // Loaded on first use: a reactor serving files never compiles it.
          return void import('./openapi/openapi-endpoint.js').then(
            ({ answerOpenApi }) => answerOpenApi(target.mount, target.page, request, response, this.datasetView(target.mount, request, () => target.mount.datasets.all())),
          ).catch((error: unknown) => sendProblem(response, error));
        case 'health':
          if (refusedUnlessRead(request, response)) return;
          return void this.health(target.probe, response).catch((error: unknown) => sendProblem(response, error));
        case 'metrics':
          if (refusedUnlessRead(request, response)) return;
          return void this.metrics.exposition().then(
            ({ body, contentType }) => {
              response.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
              response.end(request.method === 'HEAD' ? undefined : body);
            },
          ).catch((error: unknown) => sendProblem(response, error));
        case 'server-options':
          response.writeHead(204, { Allow: REACTOR_METHODS, 'Cache-Control': 'no-store' });
          return void response.end();
        case 'refused':
          return sendProblem(response, target.error);
        case 'redirect':
          return redirectToFolder(target.location, request, response);
        case 'data':
          if (readsThePast(target.history, request)) return readThePast(target.mount, target.dataset, target.item, target.history, request, response);
          if (request.method === 'GET' || request.method === 'HEAD') return readData(target.mount, target.dataset, target.item, request, response);
          return this.writeData(target, request, response);
      }
    } catch (error) {
      return sendProblem(response, error);
    }
    this.app(request, response);
  }

  /** The datasets (of those listed) the request may read at the mount; undefined where none is restricted. */
  private datasetView(mount: Mount, request: IncomingMessage, datasets: () => readonly Dataset[]): DatasetView | undefined {
    return this.gate && mount.auth ? this.gate.datasetView(mount, request, datasets().map((dataset) => dataset.id)) : undefined;
  }

  /** `/healthz`: the process answers. `/readyz`: 503 naming what is not ready. Plain text, nothing else revealed. */
  private async health(probe: 'live' | 'ready', response: ServerResponse): Promise<void> {
    const failing = probe === 'ready' ? await this.reactor.unready().catch(() => ['reactor']) : [];
    const body = failing.length === 0 ? 'ok\n' : `not ready: ${failing.join(', ')}\n`;
    response.writeHead(failing.length === 0 ? 200 : 503, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
    response.end(body);
  }

  private serveFile(target: Extract<RequestTarget, { kind: 'file' }>, request: IncomingMessage, response: ServerResponse, headers: readonly string[] | undefined): void {
    if (target.file) return this.write(request, response, target.file, headers);
    target.mount.pkg.lookup(target.path).then(
      (found) => (found.kind === 'hit' ? this.write(request, response, found.file) : sendProblem(response, new ResourceNotFoundError(`no route or file for ${target.mount.prefix.slice(0, -1)}${target.path}`))),
    ).catch((error: unknown) => sendProblem(response, error));
  }

  /**
   * `/__pkg/graphiql/<file>` and `/__pkg/api-docs/<file>`: the scripts and styles of the
   * GraphiQL and API pages, the same at every mount and before any package's paths; public
   * code, so never gated. Each file is read on its first request and kept, and answered
   * like a static file: its type, strong ETag, the reactor's Cache-Control, 304.
   */
  private serveBundledAsset(set: 'graphiql' | 'api-docs', name: string, request: IncomingMessage, response: ServerResponse): void {
    if (refusedUnlessRead(request, response)) return;
    const cacheControl = this.reactor.settings.cacheControl;
    let assets = this.bundledAssets.get(set);
    if (!assets) {
      assets = import('./bundled-assets.js').then(({ BundledAssets, API_DOCS_SET, GRAPHIQL_SET }) => new BundledAssets(cacheControl, set === 'graphiql' ? GRAPHIQL_SET : API_DOCS_SET));
      this.bundledAssets.set(set, assets);
    }
    const prefix = set === 'graphiql' ? GRAPHIQL_ASSETS_PATH : API_DOCS_ASSETS_PATH;
    assets
      .then((loaded) => loaded.file(name) ?? Promise.reject(new ResourceNotFoundError(`no such file ${prefix}${name}`)))
      .then(
        (file) => this.write(request, response, file),
      ).catch((error: unknown) => sendProblem(response, error));
  }

  private write(request: IncomingMessage, response: ServerResponse, file: Parameters<typeof writeStatic>[2], headers?: readonly string[]): void {
    const writing = writeStatic(request, response, file, headers);
    if (writing) writing.catch((error) => sendProblem(response, error));
  }

  /** Dataset writes: their module (with the body reader) is loaded on the first one. */
  private writeData(target: Extract<RequestTarget, { kind: 'data' }>, request: IncomingMessage, response: ServerResponse): void {
    this.dataWrites ??= import('./data-writes.js');
    this.dataWrites
      .then(({ writeData }) => writeData(target.mount, target.dataset, target.item, request, response, this.bodyLimit))
      .catch((error: unknown) => sendProblem(response, error));
  }

  /**
   * Hands a request to the express app, which is built on first use: express and what
   * it brings are half the code a reactor start would otherwise compile, and static
   * hits and data reads never need them.
   */
  private app(request: IncomingMessage, response: ServerResponse): void {
    this.express ??= import('./express-app.js').then(({ createExpressApp }) => createExpressApp(this.reactor, this.graphql, this.gate && ((mount, request) => this.gate!.identityAt(mount, request))));
    this.express.then(
      (app) => app(request, response),
    ).catch((error: unknown) => sendProblem(response, error));
  }

  /** The underlying server, for tools that drive it directly (supertest). */
  get httpServer(): Server {
    return this.server;
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address() as AddressInfo;
        this.reactor.listeningOn(address.port);
        resolve(address);
      });
    });
  }

  /**
   * Stops like a service: no new connections, idle ones closed, requests in flight
   * answered; those still running after the shutdown timeout (10 s unless set) lose their
   * connection.
   */
  async close(): Promise<void> {
    this.closing = true;
    this.liveReload?.close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
      const late = setTimeout(() => this.server.closeAllConnections(), this.reactor.settings.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT);
      late.unref();
      this.server.once('close', () => clearTimeout(late));
    });
    await this.access.close();
  }
}

/**
 * 301 to the folder's slashed URL, the query kept, as nginx and express.static answer: the
 * location is the decoded path encoded again segment by segment, so it is always a path
 * of this host (never `//host`, whatever the request spelled).
 */
function redirectToFolder(location: string, request: IncomingMessage, response: ServerResponse): void {
  const query = request.url!.indexOf('?');
  const target = urlPathOf(location) + (query < 0 ? '' : request.url!.slice(query));
  response.writeHead(301, { Location: target, 'Content-Length': 0, 'Cache-Control': 'no-store' });
  response.end();
}

/** nginx's status for a request whose client closed the connection before an answer was sent: no answer has it. */
const CLIENT_CLOSED_REQUEST = 499;

/** A GET or HEAD of a file already found, from no foreign origin, on a mount without authentication: nothing but its answer sets a header. */
function plainStaticRead(context: RequestContext, request: IncomingMessage): boolean {
  const { target } = context;
  return target.kind === 'file' && target.file !== undefined && !target.mount.auth && (request.method === 'GET' || request.method === 'HEAD') && request.headers.origin === undefined;
}

/**
 * RFC 9112: a server accepts a request target in absolute form (`GET http://host/path`),
 * which proxies send, as its path and query; what follows reads `request.url` in origin
 * form. Anything else (`*`, a bare authority) is left for the path check to refuse.
 */
function originForm(request: IncomingMessage): string {
  const target = request.url ?? '/';
  const absolute = /^https?:\/\/[^/?#]*(.*)$/is.exec(target);
  if (!absolute) return target;
  try {
    new URL(target);
  } catch {
    return target;
  }
  // The path as sent, not as URL resolves it: `..` and `\` are refused in either form.
  const rest = absolute[1]!;
  return (request.url = rest.startsWith('/') ? rest : `/${rest}`);
}
