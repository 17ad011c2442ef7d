import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import getRawBody from 'raw-body';
import { MalformedJsonError } from '../../domain/errors.js';
import { HttpProblem } from './http-problems.js';

/** Bytes of request bodies read at once, all writes together: past it, a body is refused unread. */
export const BODY_BYTES_IN_FLIGHT_MAX = 256 * 1024 * 1024;

/**
 * What the bodies being read hold in memory together. A body is held until all of it has
 * come: 400 clients that sent most of a 1 MiB body and then nothing held 450 MB until
 * their requests timed out, and a few thousand would take all the memory of most
 * machines. Each read sets aside what its body may grow to (its Content-Length, else the
 * limit); one that would pass the maximum is refused before a byte is read, and the
 * connection left to node, which discards what the client still sends.
 */
export class BodyBudget {
  private reading = 0;

  constructor(private readonly max = BODY_BYTES_IN_FLIGHT_MAX) {}

  /** A release for `bytes` set aside, or undefined when they would pass the maximum; a body alone is always let in. */
  take(bytes: number): (() => void) | undefined {
    if (this.reading > 0 && this.reading + bytes > this.max) return undefined;
    this.reading += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reading -= bytes;
    };
  }
}

const PROCESS_BUDGET = new BodyBudget();

/** The request Content-Encodings a body is decoded from, as express's body parsers decode them. */
const DECODERS: Readonly<Record<string, () => Transform>> = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress };

/**
 * A request body of at most `limit` bytes once decoded (413 beyond, before reading when
 * Content-Length says so), whatever its type; gzip, deflate and br bodies are decoded
 * (415 for another coding, 400 for bytes that do not decode). Every write reads its body
 * here, not through express's body parsers: they take a request whose client has
 * half-closed its connection once it sent it (`printf ... | nc -N`, HTTP/1.0 tools) for
 * one whose body was read already, and leave it empty, so a content PUT that waited for
 * anything first (a password check, its module loading) answered 200 and wrote an empty file.
 */
export async function readBody(request: IncomingMessage, limit: number, budget = PROCESS_BUDGET): Promise<Buffer> {
  const coding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = coding === 'identity' ? undefined : DECODERS[coding];
  if (coding !== 'identity' && !decoder) throw new HttpProblem(415, 'UNSUPPORTED_MEDIA_TYPE', `a request body in content encoding ${JSON.stringify(coding)} cannot be read: send it as identity, gzip, deflate or br`);
  const declared = Number(request.headers['content-length']);
  // What a body over the limit would take is never set aside: it is refused (413) as it is read.
  const release = budget.take(!decoder && Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, limit + 1) : limit);
  if (!release) throw new HttpProblem(503, 'SERVER_BUSY', 'the reactor is reading as many request bodies as it holds at once; try again in a moment', undefined, { 'Retry-After': '1' });
  try {
    return await (decoder ? getRawBody(request.pipe(decoder()), { limit }) : getRawBody(request, { limit, length: request.headers['content-length'] ?? null }));
  } catch (error) {
    if (decoder) {
      // What is left of the body is read and dropped, so the connection can carry the next request.
      request.unpipe();
      request.resume();
    }
    throw refusal(error, decoder && coding);
  } finally {
    release();
  }
}

/**
 * raw-body's refusals carry their status (413 too large, 400 cut short); a request node
 * already answered 400 (its body broke off) is gone before it is read; anything else is a
 * body that does not decode, or a connection that failed under it.
 */
function refusal(error: unknown, coding: string | undefined): unknown {
  const { status, type } = error as { status?: unknown; type?: unknown };
  if (type === 'stream.not.readable') return new HttpProblem(400, 'BAD_REQUEST', 'the request ended before its body was read');
  if (typeof status === 'number') return error;
  const reason = (error as Error).message;
  return new HttpProblem(400, 'BAD_REQUEST', coding ? `the request body does not decode as ${coding}: ${reason}` : `the request body could not be read: ${reason}`);
}

/** A body read as JSON: what JSON.parse makes of it, or MalformedJsonError (400) saying why not. */
export function jsonOf(body: Buffer): unknown {
  // JSON is UTF-8 (RFC 8259): decoded anyway, bad bytes would be stored as U+FFFD, not as sent.
  if (!isUtf8(body)) throw new MalformedJsonError('malformed JSON body: it is not valid UTF-8');
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new MalformedJsonError(`malformed JSON body: ${(error as Error).message}`);
  }
}
