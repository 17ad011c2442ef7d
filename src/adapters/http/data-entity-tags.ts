import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Collection } from '../../application/data/dataset.js';
import type { QueryAnswer } from '../../application/data/collection-queries.js';
import type { ItemPreconditions } from '../../application/data/item-preconditions.js';
import type { ContentCoding } from '../../application/ports/compressor.js';
import { PreconditionFailedError } from '../../domain/errors.js';
import { ifMatchHolds, noneMatchHits } from '../../domain/serving/entity-tags.js';
import { sendProblem } from './http-problems.js';
import { preconditionsOf } from './preconditions.js';

/**
 * Strong ETags of the data API: the SHA-256 of the bytes served, so a tag depends on
 * content alone and every reactor that holds the same items gives the same tags, across
 * restarts too.
 */
function strongTag(bytes: Uint8Array | string): string {
  // One-shot: half the cost of a Hash object for an item's few hundred bytes.
  return `"${hash('sha256', bytes, 'hex')}"`;
}

// A write stores a new object and never changes one in place, so an object's tag holds while it lives.
const itemTags = new WeakMap<object, string>();

/** The tag of an item as GET serves it (its JSON), hashed once per stored object. */
export function itemEtag(item: unknown): string {
  return taggedItem(item).etag;
}

/** An item's JSON and its tag: serialized once per answer, hashed once per stored object. */
export function taggedItem(item: unknown): { body: string; etag: string } {
  const body = JSON.stringify(item);
  if (typeof item !== 'object' || item === null) return { body, etag: strongTag(body) };
  let etag = itemTags.get(item);
  if (etag === undefined) itemTags.set(item, (etag = strongTag(body)));
  return { body, etag };
}

/** The request's `If-Match` and `If-None-Match`, for the dataset to check in its write queue; none when absent. */
export function itemPreconditionsOf(request: IncomingMessage): ItemPreconditions | undefined {
  const conditions = preconditionsOf(request);
  return conditions && { ...conditions, etagOf: itemEtag };
}

interface Tagged {
  body: Uint8Array;
  etag: string;
}

// A collection object lives for one generation of its dataset, and a query's answer as long as
// it is kept for that generation: their tags go with them.
const wholeTags = new WeakMap<Collection, string>();
const answerTags = new WeakMap<QueryAnswer, string>();

/** The collection's cached body and its tag, hashed once per generation. */
export function wholeCollection(collection: Collection): Tagged {
  let etag = wholeTags.get(collection);
  if (etag === undefined) wholeTags.set(collection, (etag = strongTag(collection.body)));
  return { body: collection.body, etag };
}

/** A query's answer and its tag, hashed once per kept answer. */
export function taggedAnswer(answer: QueryAnswer): Tagged {
  let etag = answerTags.get(answer);
  if (etag === undefined) answerTags.set(answer, (etag = strongTag(answer.body)));
  return { body: answer.body, etag };
}

/** The tag of an answer's encoded form: its identity tag and the coding. */
export function codedTag(etag: string, coding: ContentCoding): string {
  return `${etag.slice(0, -1)}-${coding}"`;
}

const CODINGS: readonly ContentCoding[] = ['br', 'gzip'];

/**
 * A GET or HEAD answer of the data API with its ETag: 412 when `If-Match` names none of
 * the answer's tags (any of its codings', as a client that was sent one form may hold that
 * tag), or a 304 with the tag and no body when `If-None-Match` names it (weakly compared,
 * as RFC 9110 says for GET). `identityEtag`: the identity form's tag, when this is an encoded one.
 */
export function sendTagged(request: IncomingMessage, response: ServerResponse, { body, etag }: { body: Uint8Array | string; etag: string }, headers: Record<string, string | number> = {}, identityEtag = etag): void {
  const ifMatch = request.headers['if-match'];
  if (ifMatch !== undefined && !ifMatchHolds(ifMatch, identityEtag) && !CODINGS.some((coding) => ifMatchHolds(ifMatch, codedTag(identityEtag, coding)))) {
    if (headers.Vary !== undefined) response.setHeader('Vary', headers.Vary);
    return sendProblem(response, new PreconditionFailedError('If-Match names none of the entity tags of this answer'));
  }
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && noneMatchHits(ifNoneMatch, etag)) {
    // RFC 9110 §15.4.5: a 304 carries the Vary the 200 would.
    response.writeHead(304, { ETag: etag, 'Cache-Control': 'no-store', ...(headers.Vary !== undefined ? { Vary: headers.Vary } : {}) });
    response.end();
    return;
  }
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': length, 'Cache-Control': 'no-store', ETag: etag, ...headers });
  response.end(request.method === 'HEAD' ? undefined : body);
}
