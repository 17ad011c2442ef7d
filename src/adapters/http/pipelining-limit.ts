import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Answers one connection may have waiting behind one not yet sent: clients that pipeline send a few. */
export const MAX_WAITING_ANSWERS = 64;

/** Per connection, the requests whose answers wait for the ones before them. */
const waiting = new WeakMap<Socket, number>();

/**
 * Whether a request came pipelined behind too many answers not yet sent, and its
 * connection is closed. Node parses every request of a read (up to 64 KB) before it stops
 * reading a connection whose answers are not being taken, and each request waits in
 * memory with its answer: a client that wrote 36 KB of GETs and read nothing held 40 MB
 * of a reactor (and of a bare node:http server), fifty such clients 390 MB. A request
 * answered at once (nothing queued before it, as with every client that waits for its
 * answers) is not counted: its answer has the connection (`response.socket`) already.
 */
export function pipelinedTooDeep(request: IncomingMessage, response: ServerResponse): boolean {
  if (response.socket !== null) return false;
  const { socket } = request;
  if (socket.destroyed) return true;
  const count = (waiting.get(socket) ?? 0) + 1;
  if (count > MAX_WAITING_ANSWERS) {
    socket.destroy();
    return true;
  }
  waiting.set(socket, count);
  response.once('socket', () => waiting.set(socket, waiting.get(socket)! - 1));
  return false;
}
