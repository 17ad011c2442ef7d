import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { preferredEncoding } from './accept-encoding.js';
import { sendTagged } from './data-entity-tags.js';
import { sendProblem } from './http-problems.js';

/** Bodies under this fit a packet or two either way: they go identity only. */
const MIN_SIZE = 860;

const compress = {
  // Quality 5: most of brotli's gain at a small part of its top quality's time, which
  // matters here because a write makes the next read compress the new version.
  br: (body: Uint8Array) => promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body: Uint8Array) => promisify(gzip)(body),
};

// A body object lives as long as its version of the data is served: its compressed forms go with it.
const kept = new WeakMap<Uint8Array, Partial<Record<keyof typeof compress, Promise<Uint8Array>>>>();

/**
 * A collection or query answer, brotli- or gzip-encoded when the client takes it: each
 * body is compressed once per coding (off the event loop, in zlib's thread pool) and kept
 * with it, never per request. Each coding has its own strong ETag; `Vary` says why.
 */
export function sendCompressible(request: IncomingMessage, response: ServerResponse, tagged: { body: Uint8Array; etag: string }, headers: Record<string, string | number>): void {
  if (tagged.body.length < MIN_SIZE) return sendTagged(request, response, tagged, headers);
  const coding = preferredEncoding(request.headers['accept-encoding']);
  const varied = { ...headers, Vary: 'Accept-Encoding' };
  if (!coding) return sendTagged(request, response, tagged, varied);
  let forms = kept.get(tagged.body);
  if (!forms) kept.set(tagged.body, (forms = {}));
  const encoding = (forms[coding] ??= compress[coding](tagged.body));
  encoding.then(
    (body) => sendTagged(request, response, { body, etag: `${tagged.etag.slice(0, -1)}-${coding}"` }, { ...varied, 'Content-Encoding': coding }),
    (error: unknown) => sendProblem(response, error),
  );
}
