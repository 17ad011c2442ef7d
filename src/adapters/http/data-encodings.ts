import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CompressedCopies } from '../../application/serving/compressed-copies.js';
import { MIN_ENCODED_SIZE } from '../../application/serving/encoded-representation.js';
import { preferredEncoding } from './accept-encoding.js';
import { codedTag, sendTagged } from './data-entity-tags.js';
import { sendProblem } from './http-problems.js';
import { addedVary } from './vary.js';

/**
 * A collection or query answer, brotli- or gzip-encoded when the client takes it: each
 * body is compressed once per coding (off the event loop, in zlib's thread pool) and kept
 * with it within the reactor's byte budget, never per request; identity when the budget
 * has no room. Each coding has its own strong ETag; `Vary` says why.
 */
export function sendCompressible(copies: CompressedCopies | undefined, request: IncomingMessage, response: ServerResponse, tagged: { body: Uint8Array; etag: string }, headers: Record<string, string | number>): void {
  if (tagged.body.length < MIN_ENCODED_SIZE || !copies) return sendTagged(request, response, tagged, headers);
  const coding = preferredEncoding(request.headers['accept-encoding']);
  const varied = { ...headers, Vary: addedVary(response, 'Accept-Encoding') };
  if (!coding) return sendTagged(request, response, tagged, varied);
  copies.ofBody(tagged.body, coding).then(
    (body) => (body ? sendTagged(request, response, { body, etag: codedTag(tagged.etag, coding) }, { ...varied, 'Content-Encoding': coding }, tagged.etag) : sendTagged(request, response, tagged, varied)),
  ).catch((error: unknown) => sendProblem(response, error));
}
