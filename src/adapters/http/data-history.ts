import type { IncomingMessage, ServerResponse } from 'node:http';
import { ItemNotFoundError } from '../../domain/errors.js';
import { parseInstant } from '../../domain/data/item-history.js';
import type { Mount } from '../../application/serving/reactor.js';
import { datasetOf } from './data-api.js';
import { sendTagged, taggedItem } from './data-entity-tags.js';
import { badRequest, methodNotAllowed, sendProblem } from './http-problems.js';

/** A read of the past: an item's versions (`/<id>/history`, any method, answered 405 but to reads), or a read of the data as it stood `?at=` a time. */
export function readsThePast(history: boolean | undefined, request: IncomingMessage): boolean {
  return history === true || ((request.method === 'GET' || request.method === 'HEAD') && /[?&]at=/.test(request.url ?? ''));
}

/**
 * `GET <dataset>/<id>/history`: the item's versions, oldest first. `GET <dataset>?at=<time>`
 * and `<dataset>/<id>?at=<time>`: the collection or the item as it stood then. Both read the
 * operation log from disk, so the past costs nothing until asked for.
 */
export function readThePast(mount: Mount, dataset: string, item: string | undefined, history: boolean | undefined, request: IncomingMessage, response: ServerResponse): void {
  // Tagged as every data answer is (and 304 for a tag the client holds).
  answer(mount, dataset, item, history, request).then(
    (value) => sendTagged(request, response, taggedItem(value), Array.isArray(value) ? { 'X-Total-Count': value.length } : {}),
  ).catch((error: unknown) => sendProblem(response, error));
}

async function answer(mount: Mount, id: string, item: string | undefined, history: boolean | undefined, request: IncomingMessage): Promise<unknown> {
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed('GET, HEAD');
  const dataset = datasetOf(mount, id, item);
  if (history) return { dataset: id, id: item, versions: await dataset.history(item!) };
  const query = new URLSearchParams((request.url ?? '').split('?')[1] ?? '');
  const others = [...query.keys()].filter((name) => name !== 'at');
  // Never silently ignored: the past is answered whole, without filters or pages.
  if (others.length > 0) throw badRequest('BAD_QUERY', `at takes no other query parameter (got ${others.join(', ')})`);
  if (query.getAll('at').length > 1) throw badRequest('BAD_QUERY', 'at is given more than once');
  const text = query.get('at') ?? '';
  const time = parseInstant(text);
  if (time === undefined) throw badRequest('BAD_QUERY', `at must be an RFC 3339 date-time like 2026-01-02T03:04:05Z (got ${JSON.stringify(text)})`);
  const state = await dataset.at(time);
  if (item === undefined) return state.list();
  const found = state.get(item);
  if (found === undefined) throw new ItemNotFoundError(`no item ${item} in dataset ${id} at ${text}`);
  return found;
}
