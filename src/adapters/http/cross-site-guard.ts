import type { IncomingMessage, ServerResponse } from 'node:http';
import { isCrossSiteWrite, isOwnHost, isSameOrigin, reactorNames } from '../../domain/auth/same-origin.js';
import { CrossSiteWriteError } from '../../domain/errors.js';
import type { Reactor } from '../../application/serving/reactor.js';
import { REACTOR_METHODS } from '../../domain/serving/reactor-paths.js';
import { sendProblem } from './http-problems.js';
import type { RequestContext } from './request-context.js';

// Link carries the other pages of a collection or history page, as json-server exposes it.
const CORS_EXPOSED = 'ETag, Location, X-Total-Count, Link, Content-Range, X-Request-Id';

/**
 * The first check of every request: a write that a page of another site made is refused
 * with 403 `CROSS_SITE_WRITE`, whatever credential it carries or none, unless its origin
 * is allowed (`--cors`, or a mount's `"cors"`); pages of allowed origins get CORS answers,
 * preflights included.
 */
export class CrossSiteGuard {
  /** Names the reactor answers to besides addresses and localhost: `--host` and deploy.json baseUrl's. */
  private readonly names: string[];

  constructor(private readonly reactor: Reactor) {
    this.names = reactorNames(reactor.settings.host, reactor.auth.deploy.baseUrl);
  }

  /** True when the guard answered: a refused write, or a preflight of an allowed origin. */
  screen(context: RequestContext, request: IncomingMessage, response: ServerResponse): boolean {
    const method = request.method ?? 'GET';
    // Where origins are allowed, whether an answer allows one depends on Origin: every answer
    // says so, to caches (Fetch, "CORS protocol and HTTP caches"). A found file's own headers
    // carry it, precomputed (static-responder), which keeps the fast path free of setHeader.
    if (context.cors.length > 0 && !answeredWithOwnVary(context, method)) response.setHeader('Vary', 'Origin');
    const origin = request.headers.origin;
    const site = request.headers['sec-fetch-site'];
    // The hot path: a plain read from the address bar or a same-site page.
    if (origin === undefined && (method === 'GET' || method === 'HEAD' || site === undefined)) return false;
    // The reactor's `--cors` origins and those of the mount the path reaches (for `/package/<name>/...`, that package's).
    const allowed = context.cors;
    const permitted = origin !== undefined && allowed.includes(origin.toLowerCase());
    if (permitted) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
      response.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED);
      if (method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
        response.writeHead(204, {
          'Access-Control-Allow-Methods': REACTOR_METHODS,
          'Access-Control-Allow-Headers': request.headers['access-control-request-headers'] ?? 'Content-Type, Authorization',
          'Access-Control-Max-Age': '600',
        });
        response.end();
        return true;
      }
      return false;
    }
    const host = (request.headers.host ?? '').toLowerCase();
    const ownHost = isOwnHost(host, this.names);
    if (!isCrossSiteWrite(method, { origin, secFetchSite: typeof site === 'string' ? site : undefined }, this.ownOrigins(host, ownHost), allowed)) return false;
    const unknownName = ownHost || origin === undefined ? '' : `; pages served under ${host}, which is not one of this reactor's names, count as another site's: set deploy.json "baseUrl" to its public address`;
    sendProblem(response, new CrossSiteWriteError(`a write from another site (${origin ?? `Sec-Fetch-Site: ${String(site)}`}) is refused; allow its origin with --cors or a mount's "cors"${unknownName}`));
    return true;
  }

  /**
   * Whether a write shows it was sent by a page the reactor lets write, as one signed in by
   * the session cookie must (browsers send that cookie on their own): `Sec-Fetch-Site:
   * same-origin`, or an `Origin` that is the reactor's own or an allowed one (`--cors`, the
   * mount's `"cors"`: the guard sent those `Access-Control-Allow-Credentials`). Unlike
   * `screen`, a request with neither header does not pass: it cannot be told from a forged one.
   */
  sentByAllowedPage(context: RequestContext, request: IncomingMessage): boolean {
    const origin = request.headers.origin?.toLowerCase();
    if (origin !== undefined && context.cors.includes(origin)) return true;
    const host = (request.headers.host ?? '').toLowerCase();
    const site = request.headers['sec-fetch-site'];
    return isSameOrigin({ origin, secFetchSite: typeof site === 'string' ? site : undefined }, this.ownOrigins(host, isOwnHost(host, this.names)));
  }

  /**
   * The reactor's own origins: deploy.json's baseUrl, and the Host the request was sent to
   * (over http, or https behind a proxy) when that is one of the reactor's names (isOwnHost).
   */
  private ownOrigins(host: string, ownHost: boolean): string[] {
    const origins = ownHost ? [`http://${host}`, `https://${host}`] : [];
    const base = this.reactor.auth.deploy.baseUrl;
    if (base !== undefined) origins.push(new URL(base).origin.toLowerCase());
    return origins;
  }
}

/** A read of a found file, past no gate: its answer is the static responder's, whose headers say `Vary: Origin` themselves. */
function answeredWithOwnVary(context: RequestContext, method: string): boolean {
  const { target } = context;
  return target.kind === 'file' && target.file !== undefined && context.access === undefined && (method === 'GET' || method === 'HEAD');
}
