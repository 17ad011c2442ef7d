import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  AmbiguousPackageError,
  ArchiveLimitError,
  DatasetFullError,
  HistoryTooLargeError,
  ContentNotFoundError,
  ContentPathError,
  ConfigValidationError,
  ContentConflictError,
  CorruptEntryError,
  UnsafeEntryError,
  UnsupportedTransferCodingError,
  HandlerNotSupportedError,
  CrossSiteWriteError,
  ForbiddenError,
  OAuth2CallbackError,
  MisdirectedRequestError,
  OAuth2ProviderError,
  OAuth2StateError,
  UnauthenticatedError,
  DatasetNotFoundError,
  DatasetUnavailableError,
  DuplicateIdError,
  IdMismatchError,
  InvalidItemError,
  InvalidQueryError,
  UnknownFieldError,
  ItemNotFoundError,
  MalformedJsonError,
  NotACollectionError,
  NotTextError,
  OverlayError,
  SourceChangedError,
  SourceUnreadableError,
  PackageError,
  PackageOutOfServiceError,
  PasswordChecksBusyError,
  UnusableSchemaError,
  PreconditionFailedError,
  ReadOnlyError,
  RouteNotWritableError,
  SchemaViolationError,
  BadRequestPathError,
  MalformedRequestError,
  RequestPathTooLongError,
  ResourceNotFoundError,
  SourceNotFoundError,
} from '../../domain/errors.js';

/** An HTTP answer other than success, with the stable code of the JSON error body. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (message = 'not found') => new HttpProblem(404, 'NOT_FOUND', message);
export const methodNotAllowed = (allow: string) => new HttpProblem(405, 'METHOD_NOT_ALLOWED', `method not allowed; allowed: ${allow}`, undefined, { Allow: allow });
export const badRequest = (code: string, message: string) => new HttpProblem(400, code, message);

/** 405 with `Allow: GET, HEAD` to any other method: true when that was the answer. */
export function refusedUnlessRead(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  sendProblem(response, methodNotAllowed('GET, HEAD'));
  return true;
}

type ErrorClass = abstract new (...args: never[]) => PackageError;

/** The status of each typed error a request can meet, and the headers it needs. */
const STATUS_OF: Array<[ErrorClass, number, Record<string, string>?]> = [
  [BadRequestPathError, 400],
  [MalformedRequestError, 400],
  [MalformedJsonError, 400],
  [InvalidItemError, 400],
  [InvalidQueryError, 400],
  // The client asked for more than one answer may hold, and can ask for less: a page.
  [HistoryTooLargeError, 400],
  [UnknownFieldError, 400],
  [ContentPathError, 400],
  [OAuth2CallbackError, 400],
  [UnauthenticatedError, 401],
  [OAuth2StateError, 401],
  [ReadOnlyError, 403],
  [ForbiddenError, 403],
  [CrossSiteWriteError, 403],
  [DatasetNotFoundError, 404],
  [ItemNotFoundError, 404],
  [ContentNotFoundError, 404],
  [ResourceNotFoundError, 404],
  [NotACollectionError, 405, { Allow: 'GET, HEAD' }],
  [RouteNotWritableError, 405, { Allow: 'GET, HEAD' }],
  [DuplicateIdError, 409],
  [IdMismatchError, 409],
  [ContentConflictError, 409],
  [AmbiguousPackageError, 409],
  // A package that cannot be saved as it is (0.1.x metadata without its identifiers, overlay
  // files put in the workdir by hand under two spellings of one name): the state conflicts with the request.
  [ConfigValidationError, 409],
  [UnsafeEntryError, 409],
  // A save that would write more entries or bytes than --max-entries or --max-expanded-size let any reader open.
  [ArchiveLimitError, 409],
  // A file of a directory source removed while served, met by a save: the package no longer is what was loaded.
  [SourceNotFoundError, 409],
  [PreconditionFailedError, 412],
  [RequestPathTooLongError, 414],
  [NotTextError, 415],
  // RFC 9110 §15.5.20: this server will not answer for that name.
  [MisdirectedRequestError, 421],
  [SchemaViolationError, 422],
  [DatasetUnavailableError, 501],
  [HandlerNotSupportedError, 501],
  [UnsupportedTransferCodingError, 501],
  [OAuth2ProviderError, 502],
  // The dataset holds what it may: nothing the write could change, but room made by deleting is taken again.
  [DatasetFullError, 507],
  [OverlayError, 503],
  // The file changed under the answer: the next request reads it anew.
  [SourceChangedError, 503],
  // The file is there but the system will not read it now (its mode, no file descriptor left): the operator's to mend.
  [SourceUnreadableError, 503],
  // A file of the package that cannot be read back: nothing a retry or the client can change, but not the client's fault.
  [CorruptEntryError, 503],
  // Out of service until the package is replaced: nothing of it is served, so a retry later may find it fixed.
  [PackageOutOfServiceError, 503],
  // The package's schema cannot judge any write: the operator's to mend, not the client's.
  [UnusableSchemaError, 503],
  // Password checks for this file are all taken (a flood of guesses, most likely): a moment later there is room.
  [PasswordChecksBusyError, 503, { 'Retry-After': '1' }],
];

/**
 * The http adapter's one error-to-status map. Anything it does not know is a 500 whose
 * body names no internals: the detail goes to the server's stderr, never to the client.
 */
export function problemOf(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof PackageError) {
    const known = STATUS_OF.find(([type]) => error instanceof type);
    if (known) {
      const details = error instanceof SchemaViolationError ? error.violations : undefined;
      // Said where the operator looks: what only they can mend.
      if (error instanceof OverlayError || error instanceof SourceChangedError || error instanceof SourceUnreadableError || error instanceof CorruptEntryError || error instanceof UnusableSchemaError) process.stderr.write(`reactor: ${error.name}: ${error.message}\n`);
      return new HttpProblem(known[1], error.code, error.message, details, known[2]);
    }
  }
  if (error instanceof PackageError) return new HttpProblem(500, error.code, error.message);
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') return new HttpProblem(413, 'BODY_TOO_LARGE', 'request body too large');
    if (type === 'entity.parse.failed') return new HttpProblem(400, 'MALFORMED_JSON', `malformed JSON body: ${(error as Error).message}`);
    return new HttpProblem(status, 'BAD_REQUEST', (error as Error).message);
  }
  // A part of the reactor loaded on first use is gone from disk: the tool was reinstalled or rebuilt under it.
  if ((error as NodeJS.ErrnoException)?.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write(`reactor: ${(error as Error).message}: the tool's files were replaced while it ran; restart it\n`);
    return new HttpProblem(503, 'RESTART_REQUIRED', "the reactor's files were replaced while it ran (reinstalled or rebuilt): it answers this once restarted");
  }
  process.stderr.write(`reactor: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
  return new HttpProblem(500, 'INTERNAL', 'internal error');
}

/** Writes the JSON error body of DECISIONS.md: `{"error": {"code", "message", "details"?}}`. */
export function sendProblem(response: ServerResponse, error: unknown): void {
  const problem = problemOf(error);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify({ error: { code: problem.code, message: problem.message, ...(problem.details ? { details: problem.details } : {}) } });
  // The reason named, not left from an answer that failed to start (`500 OK`).
  response.writeHead(problem.status, STATUS_CODES[problem.status], { ...problem.headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  response.end(body);
}

export function sendJson(response: ServerResponse, status: number, value: unknown, headers: Record<string, string | number> = {}): void {
  sendJsonText(response, status, JSON.stringify(value), headers);
}

/** `sendJson` with the value already serialized. */
export function sendJsonText(response: ServerResponse, status: number, body: string, headers: Record<string, string | number> = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', ...headers });
  response.end(body);
}
