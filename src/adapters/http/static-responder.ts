import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ContentCoding } from '../../application/ports/compressor.js';
import type { EncodedRepresentation } from '../../application/serving/encoded-representation.js';
import { representationTags, type StaticFile } from '../../application/serving/served-package.js';
import { PreconditionFailedError } from '../../domain/errors.js';
import { evaluatePreconditions, noneMatchHits } from '../../domain/serving/entity-tags.js';
import { identityRequired } from '../../domain/auth/access.js';
import { acceptedCodings } from './accept-encoding.js';
import { privateCacheControl } from './cache-control.js';
import { sendProblem } from './http-problems.js';
import { contextOf, type RequestContext } from './request-context.js';
import { withVary } from './vary.js';

interface FileHeaders {
  /** Every header but Content-Length and Content-Range, which depend on the range served. */
  resource: string[];
  /** The headers of a 200: with Content-Length. */
  full: string[];
  /** The headers of a 304: without Content-Type. */
  notModified: string[];
  /** Each encoded form's headers, built on its first answer (its length is known once it is made). */
  encoded: Partial<Record<ContentCoding, EncodedHeaders>>;
  /** The identity headers by name, lower-cased, to build an encoded form's from. */
  byName: ReadonlyMap<string, [string, string]>;
  /** The answer's `Vary`, for the answers built on the spot (416, 412). */
  vary: string | undefined;
}

interface EncodedHeaders {
  full: string[];
  notModified: string[];
}

/** Header-set variant bits (see `variantOf`): the request reaches CORS origins, so the answer varies with `Origin`. */
const VARY_ORIGIN = 1;
/** The request needed an identity: the reactor's Cache-Control is made private. */
const PRIVATE = 2;

/**
 * Headers are built once per file and variant and reused on every hit (a file's object
 * lives until its content changes), each encoded form's with them.
 */
const built: ReadonlyArray<WeakMap<StaticFile, FileHeaders>> = [new WeakMap(), new WeakMap(), new WeakMap(), new WeakMap()];

/**
 * Which header set of a file a request's answer takes. Where CORS origins are configured,
 * `Access-Control-Allow-Origin` depends on `Origin`, so every answer says so, those to
 * requests without one too (Fetch, "CORS protocol and HTTP caches"); the cross-site guard
 * leaves these answers to this. An answer the gate gave only to an identity is no shared
 * cache's to keep.
 */
function variantOf({ cors, access }: RequestContext): number {
  return (cors.length > 0 ? VARY_ORIGIN : 0) | (access !== undefined && identityRequired(access.rule, access.enabled) ? PRIVATE : 0);
}

/**
 * A file's headers: its type; the route's `headers` (which replace the default cache
 * header) or `Cache-Control`; the route's `responseHeaders` and `responseRewrite.headers`
 * over those; `Accept-Ranges`, as ranges are answered; `Vary` with `Accept-Encoding` when the answer
 * depends on it and `Origin` for the variant that does; its ETag. An encoded form differs
 * in its ETag, `Content-Encoding` and length.
 */
function headersOf(file: StaticFile, variant: number): FileHeaders {
  let headers = built[variant]!.get(file);
  if (headers) return headers;
  const byName = new Map<string, [string, string]>();
  const set = (name: string, value: string) => byName.set(name.toLowerCase(), [name, value]);
  const { route } = file;
  set('Content-Type', file.contentType);
  if (route?.headers) for (const [name, value] of Object.entries(route.headers)) set(name, value);
  else set('Cache-Control', variant & PRIVATE ? privateCacheControl(file.cacheControl) : file.cacheControl);
  for (const [name, value] of Object.entries(route?.responseHeaders ?? {})) set(name, value);
  for (const [name, value] of Object.entries(route?.responseRewrite?.headers ?? {})) set(name, value);
  // What is done with a Range header, which a route's own `Accept-Ranges: bytes` would misstate.
  set('Accept-Ranges', file.ranges === false ? 'none' : 'bytes');
  if (file.encodings) set('Vary', withVary(byName.get('vary')?.[1], 'Accept-Encoding'));
  if (variant & VARY_ORIGIN) set('Vary', withVary(byName.get('vary')?.[1], 'Origin'));
  set('ETag', file.etag);
  const resource = [...byName.values()].flat();
  headers = { resource, full: [...resource, 'Content-Length', String(file.size)], notModified: pairsWithout(byName, ['content-type']), encoded: {}, byName, vary: byName.get('vary')?.[1] };
  built[variant]!.set(file, headers);
  return headers;
}

/** An encoded form's headers: the identity ones with its ETag and Content-Encoding. */
function encodedHeadersOf(file: StaticFile, variant: number, coding: ContentCoding, form: EncodedRepresentation, body: Uint8Array): EncodedHeaders {
  const headers = headersOf(file, variant);
  let encoded = headers.encoded[coding];
  if (encoded) return encoded;
  const byName = new Map(headers.byName);
  byName.set('etag', ['ETag', form.etag]);
  byName.set('content-encoding', ['Content-Encoding', coding]);
  encoded = { full: [...[...byName.values()].flat(), 'Content-Length', String(body.length)], notModified: pairsWithout(byName, ['content-type', 'content-encoding']) };
  headers.encoded[coding] = encoded;
  return encoded;
}

function pairsWithout(byName: ReadonlyMap<string, [string, string]>, names: string[]): string[] {
  return [...byName].filter(([name]) => !names.includes(name)).flatMap(([, pair]) => pair);
}

/**
 * Writes a static response: 412 when If-Match names none of the file's tags; encoded when
 * the file has encoded forms, the client accepts one and asks for no range (brotli before
 * gzip unless the client weighs them otherwise; a form not ready yet gives way to the
 * next); otherwise the identity bytes: 304 for a matching If-None-Match, 206/416 for a
 * single byte range, HEAD without a body, bytes from memory when held, else streamed.
 */
export function writeStatic(request: IncomingMessage, response: ServerResponse, found: StaticFile, extra: readonly string[] = []): void | Promise<void> {
  const variant = variantOf(contextOf(request));
  const ifMatch = request.headers['if-match'];
  if (ifMatch !== undefined && evaluatePreconditions({ ifMatch }, representationTags(found), true) === 'If-Match') return refuseUnmatched(response, headersOf(found, variant), extra);
  const { encodings } = found;
  if (encodings !== undefined && request.headers.range === undefined) {
    const accepted = request.headers['accept-encoding'];
    if (accepted !== undefined) return writeEncoded(request, response, found, variant, acceptedCodings(accepted), 0, extra);
  }
  return writeIdentity(request, response, found, variant, extra);
}

/**
 * The first of the accepted codings, from `at` on, whose form is ready or can be made
 * now: a form is made (directory and overlay files) or checked (archive gzip) on its
 * first answer, once; a brotli copy the background pass has not made yet is skipped.
 */
function writeEncoded(request: IncomingMessage, response: ServerResponse, found: StaticFile, variant: number, codings: readonly ContentCoding[], at: number, extra: readonly string[]): void | Promise<void> {
  for (let i = at; i < codings.length; i++) {
    const coding = codings[i]!;
    const form = found.encodings![coding];
    if (form === undefined || form.refused) continue;
    if (form.body) return writeForm(request, response, found, variant, coding, form, form.body, extra);
    return form.prepare().then((body) => (body ? writeForm(request, response, found, variant, coding, form, body, extra) : writeEncoded(request, response, found, variant, codings, i + 1, extra)));
  }
  return writeIdentity(request, response, found, variant, extra);
}

/** 412 to a read whose If-Match names none of the file's tags (RFC 9110 §13.1.1), with the answer's own headers. */
function refuseUnmatched(response: ServerResponse, { vary }: FileHeaders, extra: readonly string[]): void {
  if (vary !== undefined) response.setHeader('Vary', vary);
  for (let i = 0; i < extra.length; i += 2) response.setHeader(extra[i]!, extra[i + 1]!);
  sendProblem(response, new PreconditionFailedError('If-Match names none of the entity tags of this file'));
}

/** An encoded form from memory: 200, or 304 when If-None-Match names its ETag. */
function writeForm(request: IncomingMessage, response: ServerResponse, found: StaticFile, variant: number, coding: ContentCoding, form: EncodedRepresentation, body: Uint8Array, extra: readonly string[]): void {
  const headers = encodedHeadersOf(found, variant, coding, form, body);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && noneMatchHits(ifNoneMatch, form.etag)) {
    response.writeHead(304, extra.length === 0 ? headers.notModified : [...headers.notModified, ...extra]);
    response.end();
    return;
  }
  response.writeHead(200, extra.length === 0 ? headers.full : [...headers.full, ...extra]);
  response.end(request.method === 'HEAD' ? undefined : body);
}

function writeIdentity(request: IncomingMessage, response: ServerResponse, found: StaticFile, variant: number, extra: readonly string[]): void | Promise<void> {
  const headers = headersOf(found, variant);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && noneMatchHits(ifNoneMatch, found.etag)) {
    response.writeHead(304, extra.length === 0 ? headers.notModified : [...headers.notModified, ...extra]);
    response.end();
    return;
  }
  const range = found.ranges === false ? undefined : request.headers.range;
  if (range !== undefined && (request.headers['if-range'] === undefined || request.headers['if-range'] === found.etag)) {
    const parsed = parseRange(range, found.size);
    if (parsed === 'unsatisfiable') {
      response.writeHead(416, ['Content-Range', `bytes */${found.size}`, 'Content-Type', 'application/json; charset=utf-8', ...(headers.vary === undefined ? [] : ['Vary', headers.vary]), ...extra]);
      response.end(JSON.stringify({ error: { code: 'RANGE_NOT_SATISFIABLE', message: `range ${range} is outside 0-${found.size - 1}` } }));
      return;
    }
    if (parsed) {
      const [start, end] = parsed;
      const head = () => response.writeHead(206, [...headers.resource, 'Content-Length', String(end - start + 1), 'Content-Range', `bytes ${start}-${end}/${found.size}`, ...extra]);
      if (request.method !== 'HEAD' && !found.body) return streamed(found.stream(start, end), response, head);
      head();
      return void response.end(request.method === 'HEAD' ? undefined : found.body?.subarray(start, end + 1));
    }
  }
  const fields = extra.length === 0 ? headers.full : [...headers.full, ...extra];
  // No closure for an answer from memory: the hot path.
  if (request.method !== 'HEAD' && !found.body && found.size > 0) return streamed(found.stream(0, found.size - 1), response, () => response.writeHead(200, fields));
  response.writeHead(200, fields);
  return void response.end(request.method === 'HEAD' ? undefined : found.body);
}

/**
 * Streams a body to the client, its head written once the first bytes are read: a file
 * that cannot be opened (made unreadable, no file descriptor left) is answered with its
 * error's status, where a head already written leaves only a connection closed with no
 * answer. A client that closes the connection before the end (a download cancelled, a
 * video skipped ahead) ends the answer normally, as nginx's 499 does: the access log
 * records what was sent; only a fault of the source is an error.
 */
async function streamed(source: AsyncIterable<Uint8Array>, response: ServerResponse, head: () => void): Promise<void> {
  const chunks = source[Symbol.asyncIterator]();
  const first = await chunks.next();
  head();
  try {
    await pipeline(Readable.from(resumed(first, chunks)), response);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE' || response.writableFinished) throw error;
  } finally {
    // Closed before it started, the stream's own generator never reached the file it holds open.
    await chunks.return?.();
  }
}

async function* resumed(first: IteratorResult<Uint8Array>, rest: AsyncIterator<Uint8Array>): AsyncIterable<Uint8Array> {
  if (first.done) return;
  yield first.value;
  yield* { [Symbol.asyncIterator]: () => rest };
}

/** One `bytes=` range; several ranges are answered with the whole body (RFC 9110 allows it). */
export function parseRange(header: string, size: number): [number, number] | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return [start, end];
}
