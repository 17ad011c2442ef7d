import type { IncomingMessage } from 'node:http';
import { isOwnHost, reactorNames } from '../../../domain/auth/same-origin.js';
import { MisdirectedRequestError } from '../../../domain/errors.js';
import type { Reactor } from '../../../application/serving/reactor.js';
import { nearestHop } from '../proxy-headers.js';

/**
 * The address browsers reach the reactor at, which a login sends the provider as its
 * redirect URI and which says whether cookies are `Secure`: deploy.json's baseUrl, else the
 * `Host` the request was sent to, over http, or with `--trust-proxy` over the scheme the
 * proxy puts in `X-Forwarded-Proto` or `Forwarded` (a TLS-terminating proxy speaks http to the reactor).
 */
export class PublicOrigin {
  private readonly names: string[];
  /** Whether baseUrl is https (`HTTPS://` too: it is kept as written); undefined without one. */
  private readonly baseSecure: boolean | undefined;

  constructor(private readonly reactor: Reactor) {
    const base = reactor.auth.deploy.baseUrl;
    this.names = reactorNames(reactor.settings.host, base);
    this.baseSecure = base === undefined ? undefined : new URL(base).protocol === 'https:';
  }

  /**
   * Only a `Host` that is one of the reactor's names (isOwnHost) is taken: any other may be an
   * attacker's pointed at this machine, and the provider would send the code there.
   */
  of(request: IncomingMessage): string {
    const base = this.reactor.auth.deploy.baseUrl;
    if (base !== undefined) return base;
    const host = request.headers.host ?? '';
    if (!isOwnHost(host, this.names)) {
      throw new MisdirectedRequestError(`${host === '' ? 'a request without Host' : host} is not one of this reactor's names, and a login cannot send the provider back to it: set deploy.json "baseUrl" to the reactor's public address`);
    }
    return `${this.scheme(request)}://${host}`;
  }

  /** Whether the answer's cookies must carry `Secure`: the browser reached the reactor over https. */
  secure(request: IncomingMessage): boolean {
    return this.baseSecure ?? this.scheme(request) === 'https';
  }

  /**
   * The scheme the proxy nearest the reactor was reached over (nearestHop: the last value of
   * `X-Forwarded-Proto`, else of `Forwarded`'s `proto`, as clientOf reads the address):
   * one that appends keeps a client's own value before it.
   */
  private scheme(request: IncomingMessage): 'http' | 'https' {
    if (this.reactor.settings.trustProxy !== true) return 'http';
    return nearestHop(request).proto === 'https' ? 'https' : 'http';
  }
}
