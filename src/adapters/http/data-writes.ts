import type { IncomingMessage, ServerResponse } from 'node:http';
import { MalformedJsonError } from '../../domain/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../domain/data/json-depth.js';
import type { Mount } from '../../application/serving/reactor.js';
import { allowedMethods, datasetOf } from './data-api.js';
import { methodNotAllowed, sendJsonText } from './http-problems.js';
import { itemPreconditionsOf, taggedItem } from './data-entity-tags.js';
import { jsonOf, readBody } from './request-body.js';

/**
 * POST to a collection; PUT and DELETE of an item. Refusals come before the body is read.
 * Answered by the reactor server itself, as data reads are: express's router and a body
 * parser made per request were a third of a POST's CPU, and nothing here needs them.
 */
export async function writeData(mount: Mount, id: string, item: string | undefined, request: IncomingMessage, response: ServerResponse, bodyLimit: number): Promise<void> {
  const dataset = datasetOf(mount, id, item);
  const method = request.method;
  if (item === undefined ? method !== 'POST' : method !== 'PUT' && method !== 'DELETE') throw methodNotAllowed(allowedMethods(dataset, item));
  dataset.assertWritable();
  if (method === 'DELETE') {
    await dataset.remove(item!, itemPreconditionsOf(request));
    response.writeHead(204, { 'Cache-Control': 'no-store' });
    response.end();
    return;
  }
  const value = parseJson(await readBody(request, bodyLimit));
  if (method === 'POST') {
    const created = await dataset.create(value);
    const location = `${request.url!.split('?')[0]!.replace(/\/$/, '')}/${encodeURIComponent(created.id)}`;
    const { body, etag } = taggedItem(created.item);
    return sendJsonText(response, 201, body, { Location: location, ETag: etag });
  }
  const { body, etag } = taggedItem((await dataset.replace(item!, value, itemPreconditionsOf(request))).item);
  sendJsonText(response, 200, body, { ETag: etag });
}

/** The body as JSON, refused (400) when it is empty, does not parse or nests too deep: before it can reach a write batch. */
function parseJson(body: Buffer): unknown {
  if (body.length === 0) throw new MalformedJsonError('the request body is empty; a JSON item was expected');
  const value = jsonOf(body);
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw new MalformedJsonError(`the JSON body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
  return value;
}
