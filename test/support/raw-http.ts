import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One request with node:http, which leaves the body as sent (fetch and supertest would
 * decode a compressed one): the bytes on the wire are what the test sees.
 */
export function rawRequest(url: string | URL, headers: Record<string, string> = {}, method = 'GET', body?: string | Uint8Array): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const call = httpRequest(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    call.on('error', reject);
    call.end(body);
  });
}

/**
 * Bytes written on a fresh connection as they are, the client half-closing once they are
 * sent, and all that comes back before the server closes it (as latin1 text). Fails after
 * `timeoutMs`: an answer that never ends is a hang.
 */
export function exchangeOnSocket(url: string, bytes: string | Uint8Array, timeoutMs = 5_000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms to ${JSON.stringify(Buffer.from(bytes).toString('latin1').slice(0, 300))}`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A connection the server resets still gave its answer, or none: what came is the verdict.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.end(bytes);
  });
}
