import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { ItemNotFoundError, MalformedJsonError } from '../../domain/errors.js';
import type { Dataset } from '../../application/data/dataset.js';
import type { Mount } from '../../application/serving/reactor.js';
import { badRequest, methodNotAllowed, sendJson } from './http-problems.js';

const COLLECTION_METHODS = 'GET, HEAD, POST';
const ITEM_METHODS = 'GET, HEAD, PUT, DELETE';

/** `rest` is what follows `/api/v1/data/`: a dataset id, or a dataset id and an item id. */
function parse(mount: Mount, rest: string): { dataset: Dataset; item?: string } {
  const slash = rest.indexOf('/');
  const dataset = mount.datasets.get(slash < 0 ? rest : rest.slice(0, slash));
  if (slash < 0) return { dataset };
  const item = rest.slice(slash + 1);
  if (item === '' || item.includes('/')) throw new ItemNotFoundError(`no item ${item} in dataset ${dataset.id}`);
  return { dataset, item };
}

/**
 * GET and HEAD of the data API, answered from memory: the collection's bytes are
 * serialized once per change, so a collection GET costs what a static file does.
 */
export function readData(mount: Mount, rest: string, request: IncomingMessage, response: ServerResponse): void {
  const { dataset, item } = parse(mount, rest);
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(item === undefined ? COLLECTION_METHODS : ITEM_METHODS);
  if (item !== undefined) return sendJson(response, 200, dataset.item(item));
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
      return sendJson(response, 200, items.slice(start, start + count), headers);
    }
  }
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': collection.body.length, 'Cache-Control': 'no-store', ...headers });
  response.end(request.method === 'HEAD' ? undefined : collection.body);
}

/** POST to a collection; PUT and DELETE of an item. Refusals come before the body is read. */
export async function writeData(mount: Mount, rest: string, request: express.Request, response: express.Response, bodyLimit: number): Promise<void> {
  const { dataset, item } = parse(mount, rest);
  const method = request.method;
  if (item === undefined ? method !== 'POST' : method !== 'PUT' && method !== 'DELETE') throw methodNotAllowed(item === undefined ? COLLECTION_METHODS : ITEM_METHODS);
  dataset.assertWritable();
  if (method === 'DELETE') {
    await dataset.remove(item!);
    response.writeHead(204, { 'Cache-Control': 'no-store' });
    response.end();
    return;
  }
  const value = parseJson(await readBody(request, response, bodyLimit));
  if (method === 'POST') {
    const created = await dataset.create(value);
    const location = `${request.originalUrl.split('?')[0]!.replace(/\/$/, '')}/${encodeURIComponent(created.id)}`;
    return sendJson(response, 201, created.item, { Location: location });
  }
  sendJson(response, 200, (await dataset.replace(item!, value)).item);
}

/** A request body of at most `limit` bytes (413 beyond), whatever its declared type. */
export async function readBody(request: express.Request, response: express.Response, limit: number): Promise<Buffer> {
  await new Promise<void>((resolve, reject) => express.raw({ type: () => true, limit })(request, response, (error?: unknown) => (error ? reject(error) : resolve())));
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new MalformedJsonError(body.length === 0 ? 'the request body is empty; a JSON item was expected' : `malformed JSON body: ${(error as Error).message}`);
  }
}

function pageNumber(value: string | null, name: string): number | undefined {
  if (value === null) return undefined;
  const number = Number(value);
  if (value === '' || !Number.isInteger(number) || number < 0) throw badRequest('BAD_QUERY', `${name} must be a non-negative integer`);
  return number;
}
