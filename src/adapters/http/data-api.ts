import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidQueryError, ItemNotFoundError } from '../../domain/errors.js';
import type { Dataset } from '../../application/data/dataset.js';
import type { Mount } from '../../application/serving/reactor.js';
import { methodNotAllowed } from './http-problems.js';
import { sendTagged, taggedAnswer, taggedItem, wholeCollection } from './data-entity-tags.js';
import { sendCompressible } from './data-encodings.js';

// Reads only: the reactor answers them ahead of express, so this file must not load it (writes are in data-writes.ts).

/** What a data path answers (`Allow`): reads only where writes are refused, a document or a read-only package. */
export function allowedMethods(dataset: Dataset, item: string | undefined): string {
  if (!dataset.writable) return 'GET, HEAD';
  return item === undefined ? 'GET, HEAD, POST' : 'GET, HEAD, PUT, DELETE';
}

/** The dataset a data target names, and its item: `item` is the rest of the path, one segment. */
export function datasetOf(mount: Mount, id: string, item: string | undefined): Dataset {
  const dataset = mount.datasets.get(id);
  if (item !== undefined && (item === '' || item.includes('/'))) throw new ItemNotFoundError(`no item ${item} in dataset ${dataset.id}`);
  return dataset;
}

/**
 * GET and HEAD of the data API, answered from memory: the collection's bytes are
 * serialized once per change, so a collection GET costs what a static file does.
 */
export function readData(mount: Mount, id: string, item: string | undefined, request: IncomingMessage, response: ServerResponse): void {
  const dataset = datasetOf(mount, id, item);
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(allowedMethods(dataset, item));
  if (item !== undefined) {
    const found = dataset.item(item);
    return sendTagged(request, response, taggedItem(found));
  }
  const url = request.url ?? '';
  const query = url.indexOf('?');
  if (query >= 0 && query < url.length - 1) {
    // A parameter is never ignored, and a document has no items to select.
    if (!dataset.isCollection) throw new InvalidQueryError(`dataset ${dataset.id} is one document, not a list: query parameters select the items of a list`);
    // Only what the query selects is serialized, never the whole collection first.
    return answerQuery(mount, dataset, url, query, request, response);
  }
  const collection = dataset.collection();
  const { items } = collection;
  const headers: Record<string, string | number> = items ? { 'X-Total-Count': items.length } : {};
  sendCompressible(mount.pkg.copies, request, response, wholeCollection(collection), headers);
}

/** A query of the collection: the page it selects, `X-Total-Count` of all that match, and `Link` to the other pages. */
function answerQuery(mount: Mount, dataset: Dataset, url: string, query: number, request: IncomingMessage, response: ServerResponse): void {
  const answer = dataset.query(url.slice(query + 1));
  const headers: Record<string, string | number> = { 'X-Total-Count': answer.total };
  const links = answer.window ? pageLinks(url.slice(0, query), new URLSearchParams(url.slice(query + 1)), answer.window, answer.total) : '';
  if (links) headers.Link = links;
  sendCompressible(mount.pkg.copies, request, response, taggedAnswer(answer), headers);
}

/** RFC 8288 links to the first, previous, next and last pages, in the paging the client used. */
export function pageLinks(path: string, parameters: URLSearchParams, window: NonNullable<ReturnType<Dataset['query']>['window']>, total: number): string {
  const size = window.limit ?? total;
  if (size === 0) return '';
  // A path as the client sent it may hold `>` or `"` (an item id's): escaped, a link's target cannot end early.
  const target = path.replace(/[<>"]/g, encodeURIComponent);
  const at = (offset: number) => {
    const next = new URLSearchParams(parameters);
    if (window.page !== undefined) next.set('page', String(Math.floor(offset / size) + 1));
    else next.set('offset', String(offset));
    return `<${target}?${next.toString()}>`;
  };
  // The last window of the walk the client is on: from offset=1 by 4 through 6 items, next is 5,
  // and so is last (the grid from 0 would say 4, before next).
  const start = window.offset % size;
  const last = total - 1 < start ? 0 : start + Math.floor((total - 1 - start) / size) * size;
  const links = [`${at(0)}; rel="first"`];
  if (window.offset > 0) links.push(`${at(Math.max(0, window.offset - size))}; rel="prev"`);
  if (window.offset + size < total) links.push(`${at(window.offset + size)}; rel="next"`);
  links.push(`${at(last)}; rel="last"`);
  return links.join(', ');
}
