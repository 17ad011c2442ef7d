import type { IncomingMessage } from 'node:http';
import type { Identity } from '../../domain/auth/access.js';
import type { ResolvedRequest } from '../../application/serving/request-target.js';

/** A request as the pipeline knows it: resolved once, and the identity the gate admitted, if any. */
export interface RequestContext extends ResolvedRequest {
  identity?: Identity;
}

const CONTEXT = Symbol('pkg.request');
type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

/** Kept on the request itself, so express and the GraphQL resolvers read what the front door resolved. */
export function attachContext(request: IncomingMessage, context: RequestContext): void {
  (request as WithContext)[CONTEXT] = context;
}

export function contextOf(request: IncomingMessage): RequestContext {
  const context = (request as WithContext)[CONTEXT];
  if (!context) throw new Error('the request reached a handler without being resolved by the reactor server');
  return context;
}
