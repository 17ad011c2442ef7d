import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

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
  const answering = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || answering) return void socket.destroy();
  const [status, code, message] = refusalOf(error);
  const body = JSON.stringify({ error: { code, message } });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

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
