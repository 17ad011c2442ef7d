import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { MalformedRequestError, UnsupportedTransferCodingError, type PackageError } from '../../domain/errors.js';

/** Node's parser gives up past this many bytes of request line and headers (the server's maxHeaderSize). */
export const MAX_HEAD_BYTES = 16 * 1024;

/**
 * Answers what node's HTTP parser refuses before there is a request to answer (bytes
 * outside ASCII in the target, Content-Length with Transfer-Encoding, an unknown method,
 * a head over MAX_HEAD_BYTES) with the JSON error body every other refusal has: node's own
 * answer is a bare status line. A connection with an answer under way is only closed:
 * bytes written now would land inside that answer.
 */
export function answerClientError(error: NodeJS.ErrnoException & { reason?: string; rawPacket?: Buffer }, socket: Duplex): void {
  // A request whose head parsed has an answer object; until its head is written, the refusal
  // is still the answer (a body that times out, or whose Transfer-Encoding does not parse).
  const answering = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) return void socket.destroy();
  const [status, code, message] = refusalOf(error);
  // Written past the answer object, which is what the access log reads: it is told the status.
  if (answering) refusedOnSocket.set(answering, status);
  refuseOnSocket(socket, status, code, message);
}

/** Answers whose request was refused on the socket itself (a body that timed out or did not parse): the status sent. */
export const refusedOnSocket = new WeakMap<ServerResponse, number>();

/** A refusal written on a connection no request object answers (node's parser failed, or CONNECT), then closed. */
export function refuseOnSocket(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * What node's parser lets through of a request that is not well-formed HTTP/1.1: a
 * Transfer-Encoding whose last coding is not chunked, whose body has no end (RFC 9112
 * §6.3; node hands the request on before it fails on the body), and other than exactly
 * one Host (§3.2; counted on the raw headers, as node keeps the first and drops the rest),
 * or a Host that is not `uri-host [":" port]` (RFC 3986). A body in a coding besides chunked (gzip, say) is well-formed but not understood here.
 */
export function malformedHead(request: IncomingMessage): PackageError | undefined {
  const encoding = request.headers['transfer-encoding'];
  if (encoding !== undefined) {
    if (!/(?:^|,)[ \t]*chunked[ \t]*$/i.test(encoding)) return new MalformedRequestError('a Transfer-Encoding that does not end in chunked leaves the body without an end');
    if (!/^[ \t]*chunked[ \t]*$/i.test(encoding)) return new UnsupportedTransferCodingError(`the body's transfer codings (${encoding}) go beyond chunked, the only one this server decodes`);
  }
  const raw = request.rawHeaders;
  let hosts = 0;
  for (let index = 0; index < raw.length; index += 2) if (raw[index]!.length === 4 && raw[index]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return new MalformedRequestError('the request has more than one Host header');
  if (hosts === 0 && request.httpVersionMinor === 1 && request.httpVersionMajor === 1) return new MalformedRequestError('an HTTP/1.1 request needs a Host header');
  const host = request.headers.host;
  if (host !== undefined && !HOST.test(host)) return new MalformedRequestError('the Host header is not a host name or address with an optional port');
  return undefined;
}

/**
 * An IP literal, or a registered name or IPv4 address, and an optional port (RFC 3986 §3.2.2).
 * Taken as a name, `evil.example#.localhost` or `[::1]@evil.example` would pass for one of the
 * reactor's own (isOwnHost), and a login's redirect URI built on it would lead elsewhere.
 */
const HOST = /^(?:\[[\dA-Fa-f:.]+\]|[\w\-.~!$&'()*+,;=%]*)(?::\d*)?$/;

function refusalOf(error: NodeJS.ErrnoException & { reason?: string; rawPacket?: Buffer }): [number, string, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'REQUEST_TIMEOUT', 'the request did not arrive whole in time'];
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // The request line alone past the limit is a path too long, as one under it but over 4,096 characters is.
    const lineEnd = error.rawPacket?.indexOf('\r\n') ?? -1;
    return lineEnd < 0 || lineEnd >= MAX_HEAD_BYTES ? [414, 'BAD_PATH', 'request path too long'] : [431, 'HEADERS_TOO_LARGE', `the request line and headers are over ${MAX_HEAD_BYTES / 1024} KB`];
  }
  // llhttp's reasons name the fault in plain words ("Invalid method encountered") and nothing of the server.
  return [400, 'BAD_REQUEST', `malformed HTTP request: ${error.reason ?? 'it does not parse'}`];
}
