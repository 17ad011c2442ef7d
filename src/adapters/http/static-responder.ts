import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StaticFile } from '../../application/serving/served-package.js';
import { noneMatchHits } from '../../domain/serving/entity-tags.js';
import { acceptsGzip } from './accept-encoding.js';

interface FileHeaders {
  /** Every header but Content-Length and Content-Range, which depend on the range served. */
  resource: string[];
  /** The headers of a 200: with Content-Length. */
  full: string[];
  /** The headers of a 304: without Content-Type. */
  notModified: string[];
  /** For files with a gzip form: the headers of its 200 and its 304. */
  gzip?: { full: string[]; notModified: string[] };
}

/**
 * Headers are built once per file and reused on every hit (a file's object lives until
 * its content changes), the gzip form's with them.
 */
const built = new WeakMap<StaticFile, FileHeaders>();

/**
 * A file's headers: its type; the route's `headers` (which replace the default cache
 * header) or `Cache-Control`; `Accept-Ranges`; the route's `responseHeaders` and
 * `responseRewrite.headers` over those; `Vary: Accept-Encoding` when the answer depends
 * on it; its ETag. The gzip form differs in its ETag and `Content-Encoding`.
 */
function headersOf(file: StaticFile): FileHeaders {
  let headers = built.get(file);
  if (headers) return headers;
  const byName = new Map<string, [string, string]>();
  const set = (name: string, value: string) => byName.set(name.toLowerCase(), [name, value]);
  const { route } = file;
  set('Content-Type', file.contentType);
  if (route?.headers) for (const [name, value] of Object.entries(route.headers)) set(name, value);
  else set('Cache-Control', file.cacheControl);
  set('Accept-Ranges', 'bytes');
  for (const [name, value] of Object.entries(route?.responseHeaders ?? {})) set(name, value);
  for (const [name, value] of Object.entries(route?.responseRewrite?.headers ?? {})) set(name, value);
  if (file.gzip) set('Vary', withAcceptEncoding(byName.get('vary')?.[1]));
  set('ETag', file.etag);
  const resource = [...byName.values()].flat();
  const without = (names: string[]) => [...byName].filter(([name]) => !names.includes(name)).flatMap(([, pair]) => pair);
  headers = { resource, full: [...resource, 'Content-Length', String(file.size)], notModified: without(['content-type']) };
  if (file.gzip) {
    set('ETag', file.gzip.etag);
    set('Content-Encoding', 'gzip');
    // Byte ranges are of the identity bytes: a range request is answered without gzip.
    headers.gzip = { full: [...[...byName.values()].flat(), 'Content-Length', String(file.gzip.size)], notModified: without(['content-type', 'content-encoding']) };
  }
  built.set(file, headers);
  return headers;
}

/** A route's own Vary with Accept-Encoding added, unless it names it (or `*`) already. */
function withAcceptEncoding(vary: string | undefined): string {
  if (vary === undefined || vary.trim() === '') return 'Accept-Encoding';
  return /(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary) ? vary : `${vary}, Accept-Encoding`;
}

/**
 * Writes a static response: gzip-encoded when the file has a gzip form, the client
 * accepts gzip and asks for no range; otherwise the identity bytes: 304 for a matching
 * If-None-Match, 206/416 for a single byte range, HEAD without a body, bytes from
 * memory when held, else streamed.
 */
export function writeStatic(request: IncomingMessage, response: ServerResponse, found: StaticFile, extra: readonly string[] = []): void | Promise<void> {
  const { gzip } = found;
  if (gzip !== undefined && !gzip.refused && request.headers.range === undefined && acceptsGzip(request.headers['accept-encoding'])) {
    if (gzip.body) return writeGzip(request, response, found, gzip.body, extra);
    // The first gzip answer of a file checks its bytes; until they pass, identity.
    return gzip.prepare().then((body) => (body ? writeGzip(request, response, found, body, extra) : writeIdentity(request, response, found, extra)));
  }
  return writeIdentity(request, response, found, extra);
}

/** The gzip form from memory: 200, or 304 when If-None-Match names the gzip ETag. */
function writeGzip(request: IncomingMessage, response: ServerResponse, found: StaticFile, body: Uint8Array, extra: readonly string[]): void {
  const headers = headersOf(found).gzip!;
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && noneMatchHits(ifNoneMatch, found.gzip!.etag)) {
    response.writeHead(304, extra.length === 0 ? headers.notModified : [...headers.notModified, ...extra]);
    response.end();
    return;
  }
  response.writeHead(200, extra.length === 0 ? headers.full : [...headers.full, ...extra]);
  response.end(request.method === 'HEAD' ? undefined : body);
}

function writeIdentity(request: IncomingMessage, response: ServerResponse, found: StaticFile, extra: readonly string[]): void | Promise<void> {
  const headers = headersOf(found);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && noneMatchHits(ifNoneMatch, found.etag)) {
    response.writeHead(304, extra.length === 0 ? headers.notModified : [...headers.notModified, ...extra]);
    response.end();
    return;
  }
  const range = request.headers.range;
  if (range !== undefined && (request.headers['if-range'] === undefined || request.headers['if-range'] === found.etag)) {
    const parsed = parseRange(range, found.size);
    if (parsed === 'unsatisfiable') {
      response.writeHead(416, ['Content-Range', `bytes */${found.size}`, 'Content-Type', 'application/json; charset=utf-8', ...extra]);
      response.end(JSON.stringify({ error: { code: 'RANGE_NOT_SATISFIABLE', message: `range ${range} is outside 0-${found.size - 1}` } }));
      return;
    }
    if (parsed) {
      const [start, end] = parsed;
      response.writeHead(206, [...headers.resource, 'Content-Length', String(end - start + 1), 'Content-Range', `bytes ${start}-${end}/${found.size}`, ...extra]);
      if (request.method === 'HEAD') return void response.end();
      if (found.body) return void response.end(found.body.subarray(start, end + 1));
      return pipeline(Readable.from(found.stream(start, end)), response);
    }
  }
  response.writeHead(200, extra.length === 0 ? headers.full : [...headers.full, ...extra]);
  if (request.method === 'HEAD') return void response.end();
  if (found.body) return void response.end(found.body);
  if (found.size === 0) return void response.end();
  return pipeline(Readable.from(found.stream(0, found.size - 1)), response);
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
