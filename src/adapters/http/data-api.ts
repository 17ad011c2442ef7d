import type { IncomingMessage, ServerResponse } from 'node:http';
import { ItemNotFoundError } from '../../domain/errors.js';
import type { Dataset } from '../../application/data/dataset.js';
import type { Mount } from '../../application/serving/reactor.js';
import { badRequest, methodNotAllowed } from './http-problems.js';
import { collectionPage, itemEtag, sendTagged, wholeCollection } from './data-entity-tags.js';

// Reads only: the reactor answers them ahead of express, so this file must not load it (writes are in data-writes.ts).

export const COLLECTION_METHODS = 'GET, HEAD, POST';
export const ITEM_METHODS = 'GET, HEAD, PUT, DELETE';

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
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(item === undefined ? COLLECTION_METHODS : ITEM_METHODS);
  if (item !== undefined) {
    const found = dataset.item(item);
    return sendTagged(request, response, { body: JSON.stringify(found), etag: itemEtag(found) });
  }
  const collection = dataset.collection();
  const { items } = collection;
  const headers: Record<string, string | number> = items ? { 'X-Total-Count': items.length } : {};
  const url = request.url ?? '';
  const query = url.indexOf('?');
  if (query >= 0 && items) {
    const parameters = new URLSearchParams(url.slice(query + 1));
    if (parameters.has('limit') || parameters.has('offset')) {
      const start = pageNumber(parameters.get('offset'), 'offset') ?? 0;
      const count = pageNumber(parameters.get('limit'), 'limit') ?? items.length;
      return sendTagged(request, response, collectionPage(collection, items, start, count), headers);
    }
  }
  sendTagged(request, response, wholeCollection(collection), headers);
}

function pageNumber(value: string | null, name: string): number | undefined {
  if (value === null) return undefined;
  const number = Number(value);
  if (value === '' || !Number.isInteger(number) || number < 0) throw badRequest('BAD_QUERY', `${name} must be a non-negative integer`);
  return number;
}
