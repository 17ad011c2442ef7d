import type { IncomingMessage, ServerResponse } from 'node:http';
import { ItemNotFoundError } from '../../domain/errors.js';
import { parseInstant } from '../../domain/data/item-history.js';
import type { Mount } from '../../application/serving/reactor.js';
import { parseCollectionQuery } from '../../domain/data/collection-query.js';
import type { Dataset } from '../../application/data/dataset.js';
import { datasetOf, pageLinks } from './data-api.js';
import { sendTagged, taggedItem } from './data-entity-tags.js';
import { badRequest, methodNotAllowed, sendProblem } from './http-problems.js';
import { splitTarget } from './request-query.js';

/**
 * A read of the past: an item's versions (`/<id>/history`, any method, answered 405 but to
 * reads), or a read of the data as it stood `?at=` a time. Told by the query as decoded
 * (`%61t=`, `at` without a value): else a past asked for so was answered with the present.
 */
export function readsThePast(history: boolean | undefined, request: IncomingMessage): boolean {
  return history === true || ((request.method === 'GET' || request.method === 'HEAD') && (request.url ?? '').includes('?') && splitTarget(request.url!).query.has('at'));
}

/**
 * `GET <dataset>/<id>/history`: the item's versions, oldest first. `GET <dataset>?at=<time>`
 * and `<dataset>/<id>?at=<time>`: the collection or the item as it stood then. Both read the
 * operation log, so the past costs nothing until asked for; after that, only what writes appended.
 */
export function readThePast(mount: Mount, dataset: string, item: string | undefined, history: boolean | undefined, request: IncomingMessage, response: ServerResponse): void {
  // Tagged as every data answer is (and 304 for a tag the client holds).
  answer(mount, dataset, item, history, request).then(
    ({ value, headers }) => sendTagged(request, response, taggedItem(value), headers ?? (Array.isArray(value) ? { 'X-Total-Count': value.length } : {})),
  ).catch((error: unknown) => sendProblem(response, error));
}

async function answer(mount: Mount, id: string, item: string | undefined, history: boolean | undefined, request: IncomingMessage): Promise<{ value: unknown; headers?: Record<string, string | number> }> {
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed('GET, HEAD');
  const dataset = datasetOf(mount, id, item);
  const { path, query } = splitTarget(request.url ?? '');
  if (history) return versions(dataset, id, item!, path, query);
  return { value: await pastState(dataset, id, item, query) };
}

/** An item's versions, whole or the page `limit`/`offset` (or `page`/`per_page`) asks for, with `X-Total-Count` and `Link` when paged. */
async function versions(dataset: Dataset, id: string, item: string, path: string, query: URLSearchParams): Promise<{ value: unknown; headers: Record<string, string | number> }> {
  const others = [...query.keys()].filter((name) => !PAGING.has(name));
  if (others.length > 0) throw badRequest('BAD_QUERY', `history takes no query parameter but limit, offset, page and per_page (got ${others.join(', ')})`);
  const { window } = parseCollectionQuery(query, NO_FIELDS);
  const page = await dataset.history(item, window);
  const headers: Record<string, string | number> = { 'X-Total-Count': page.total };
  const links = window ? pageLinks(path, query, window, page.total) : '';
  if (links) headers.Link = links;
  return { value: { dataset: id, id: item, versions: page.versions }, headers };
}

const PAGING = new Set(['limit', 'offset', 'page', 'per_page']);
const NO_FIELDS = { has: () => false, typeOf: () => undefined };

/**
 * An offset's `+` sent unencoded (`at=...T10:00:00+02:00`, as curl and a browser's address
 * bar send it) reads as a space in a query: there, where a space means nothing else, it is
 * the `+` that was meant.
 */
const UNENCODED_PLUS = /(?<=\d) (\d{2}:\d{2})$/;

async function pastState(dataset: Dataset, id: string, item: string | undefined, query: URLSearchParams): Promise<unknown> {
  const others = [...query.keys()].filter((name) => name !== 'at');
  // Never silently ignored: the past is answered whole, without filters or pages.
  if (others.length > 0) throw badRequest('BAD_QUERY', `at takes no other query parameter (got ${others.join(', ')})`);
  if (query.getAll('at').length > 1) throw badRequest('BAD_QUERY', 'at is given more than once');
  const text = query.get('at') ?? '';
  const time = parseInstant(text.replace(UNENCODED_PLUS, '+$1'));
  if (time === undefined) throw badRequest('BAD_QUERY', `at must be an RFC 3339 date-time like 2026-01-02T03:04:05Z (got ${JSON.stringify(text)})`);
  // A dataset that is one document is never written: it stood at any time as the package has it.
  if (item === undefined && !dataset.isCollection) return dataset.document();
  const state = await dataset.at(time);
  if (item === undefined) return state.list();
  const found = state.get(item);
  if (found === undefined) throw new ItemNotFoundError(`no item ${item} in dataset ${id} at ${text}`);
  return found;
}
