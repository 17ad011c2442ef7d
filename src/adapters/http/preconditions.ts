import type { IncomingMessage } from 'node:http';
import type { Preconditions } from '../../domain/serving/entity-tags.js';

/** The request's `If-Match` and `If-None-Match`; undefined when it sends neither. */
export function preconditionsOf(request: IncomingMessage): Preconditions | undefined {
  const { 'if-match': ifMatch, 'if-none-match': ifNoneMatch } = request.headers;
  return ifMatch === undefined && ifNoneMatch === undefined ? undefined : { ifMatch, ifNoneMatch };
}
