import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import { DEFAULT_BODY_LIMIT, type Mount, type Reactor } from '../../application/serving/reactor.js';
import { readData } from './data-api.js';
import { graphqlDatasets } from './graphql/graphql-datasets.js';
import { lazyGraphqlEndpoint } from './graphql/lazy-graphql.js';
import { sendProblem } from './http-problems.js';
import { LineSink } from './line-sink.js';
import { pathOf, resolveRequest, type Resolution } from './request-resolution.js';
import { writeStatic } from './static-responder.js';
import { AuthGate, REACTOR_PATHS } from './auth/auth-gate.js';
import { CrossSiteGuard } from './cross-site-guard.js';
import { LiveReloadStream } from './live-reload-stream.js';
import { LIVE_RELOAD_PATH } from '../../application/serving/served-package.js';

/**
 * The reactor's HTTP front door. Static GET/HEAD hits and data reads are answered here,
 * straight from the route and layer lookups with precomputed headers or from the
 * dataset's cached bytes; every other request goes to the express app. Both share the
 * access log and the metrics.
 */
export class ReactorServer {
  /** Loaded on the first request that needs it; see `app`. */
  private express: Promise<RequestListener> | undefined;
  private readonly server: Server;
  private readonly sink: LineSink;
  /** The mounts that answer GraphQL: those with a JSON dataset. */
  private readonly graphql = new Map<Mount, RequestHandler>();
  private readonly graphqlMounts: ReadonlySet<Mount>;
  /** Absent when no mount enables authentication or restricts a route: then nothing is checked. */
  private readonly gate: AuthGate | undefined;
  private readonly guard: CrossSiteGuard;
  private readonly liveReload: LiveReloadStream | undefined;

  constructor(
    private readonly reactor: Reactor,
    options: { log?: (text: string) => void; quiet?: boolean } = {},
  ) {
    this.gate = AuthGate.of(reactor);
    const bodyLimit = reactor.settings.bodyLimit ?? DEFAULT_BODY_LIMIT;
    for (const mount of reactor.all()) {
      const dataSets = mount.pkg.model.storage?.dataSets ?? {};
      if (graphqlDatasets(mount.datasets, dataSets).length === 0) continue;
      const gate = mount.auth ? this.gate : undefined;
      this.graphql.set(mount, lazyGraphqlEndpoint(() => mount.datasets, () => mount.pkg.model.storage?.dataSets ?? {}, { bodyLimit, ...(gate ? { authorize: (request, datasetId) => gate.authorizeDataset(mount, request, datasetId) } : {}) }));
    }
    this.graphqlMounts = new Set(this.graphql.keys());
    this.guard = new CrossSiteGuard(reactor);
    this.liveReload = reactor.settings.watch && reactor.settings.liveReload ? new LiveReloadStream(reactor) : undefined;
    this.sink = new LineSink(options.quiet ? () => undefined : options.log);
    this.server = createServer({ maxHeaderSize: 16 * 1024, requestTimeout: 60_000 }, (request, response) => this.handle(request, response));
    this.server.keepAliveTimeout = 65_000;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    if (this.liveReload && request.method === 'GET' && pathOf(request.url ?? '/') === LIVE_RELOAD_PATH) return this.liveReload.add(response);
    if (this.guard.screen(request, response)) return this.logOnFinish(request.method ?? 'GET', request.url ?? '/', response);
    const screened = this.gate?.screen(request, response) ?? false;
    if (screened === false) return this.route(request, response);
    this.logOnFinish(request.method ?? 'GET', request.url ?? '/', response);
    if (screened !== true)
      screened.then(
        (answered) => answered || this.route(request, response, false),
        (error) => sendProblem(response, error),
      );
  }

  /** Past the gate: static hits and data reads here, everything else in express. `log` is false when the gate arranged the log line. */
  private route(request: IncomingMessage, response: ServerResponse, log = true): void {
    const method = request.method ?? 'GET';
    const url = request.url ?? '/';
    if ((method === 'GET' || method === 'HEAD') && !REACTOR_PATHS.test(url)) {
      const served = this.serveStatic(request, response, url);
      if (served === true) {
        // A body from memory is written by now: log without a per-request listener.
        if (!log) return;
        if (response.writableEnded) this.logged(method, url, response.statusCode);
        else this.logOnFinish(method, url, response);
        return;
      }
      if (log) this.logOnFinish(method, url, response);
      if (served) {
        served.then(
          (done) => done || this.app(request, response),
          (error) => sendProblem(response, error),
        );
        return;
      }
    } else if (log) this.logOnFinish(method, url, response);
    this.app(request, response);
  }

  /**
   * Hands a request to the express app, which is built on first use: express and its
   * body parsers are half the code a reactor start would otherwise compile, and static
   * hits and data reads never need them.
   */
  private app(request: IncomingMessage, response: ServerResponse): void {
    this.express ??= import('./express-app.js').then(({ createExpressApp }) => createExpressApp(this.reactor, this.graphql));
    this.express.then(
      (app) => app(request, response),
      (error) => sendProblem(response, error),
    );
  }

  private logOnFinish(method: string, url: string, response: ServerResponse): void {
    response.once('finish', () => this.logged(method, url, response.statusCode));
  }

  private logged(method: string, url: string, status: number): void {
    this.sink.push(this.reactor.log.record(method, pathOf(url), status, new Date()));
  }

  /**
   * Answers static hits, data reads and the 400/404 of paths under the mounts here; true
   * when answered, false when express should answer (GraphQL), a promise when the
   * lookup is not cached yet. The resolution stays on the request for express.
   */
  private serveStatic(request: IncomingMessage, response: ServerResponse, url: string): boolean | Promise<boolean> {
    const resolution = resolveRequest(this.reactor, request, pathOf(url), this.graphqlMounts);
    return resolution instanceof Promise ? resolution.then((r) => this.answer(request, response, r)) : this.answer(request, response, resolution);
  }

  private answer(request: IncomingMessage, response: ServerResponse, resolution: Resolution): boolean {
    if (resolution.kind === 'hit') return this.write(request, response, resolution.response);
    if (resolution.kind === 'problem') {
      sendProblem(response, resolution.problem);
      return true;
    }
    if (resolution.kind === 'data') {
      try {
        readData(resolution.mount, resolution.rest, request, response);
      } catch (error) {
        sendProblem(response, error);
      }
      return true;
    }
    return false;
  }

  private write(request: IncomingMessage, response: ServerResponse, found: Parameters<typeof writeStatic>[2]): true {
    const writing = writeStatic(request, response, found);
    if (writing) writing.catch((error) => sendProblem(response, error));
    return true;
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
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    this.sink.flush();
  }
}
