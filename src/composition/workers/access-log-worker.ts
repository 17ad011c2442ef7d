// Worker thread entry: writes the reactor's JSON access lines to stdout off its event loop (see AccessLog).
import { writeSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import pino from 'pino';
import { AccessRecordRing, type AccessRecordView } from '../../adapters/http/observability/access-record-ring.js';
import { AccessLineEncoder } from '../../adapters/http/observability/access-line-encoder.js';
import { StdoutAfterFailure, linesIn } from '../../adapters/shared/stdout-after-failure.js';
import { LineSink } from '../../adapters/http/line-sink.js';
import type { AccessLogWorkerData } from '../../adapters/http/observability/access-log.js';

/** How long lines gather between writes when requests keep coming. */
const PAUSE_MS = 10;

const { data, control, idPrefix, fd } = workerData as AccessLogWorkerData;
const ring = new AccessRecordRing(data, control);
// Synchronous here, on a thread of its own: pino's destination retries a full pipe (EAGAIN) until it drains.
// In buffer mode it takes the bytes as they are (its types know only the text mode).
const destination = pino.destination({ dest: fd, sync: true, contentMode: 'buffer' }) as unknown as { write(bytes: Buffer): boolean; on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): void };
let afterFailure: StdoutAfterFailure | undefined;
let refused: NodeJS.ErrnoException | undefined;
// The synchronous destination says a write failed with an event, during the write.
destination.on('error', (error) => (refused = error));
// Each line is written into the batch's bytes straight from the ring; the batch itself is
// written (pino's synchronous destination writes a single buffer as it is, retrying until done).
// Once stdout failed (closed, or on a full disk) the lines are still taken, so the event loop never waits for room.
const sink = new LineSink((bytes) => {
  if (afterFailure) return afterFailure.write(bytes);
  refused = undefined;
  try {
    destination.write(bytes);
  } catch (error) {
    refused = error as NodeJS.ErrnoException;
  }
  if (refused === undefined) return;
  // Straight to the descriptor: this thread's process.stderr is sent on by its event loop, which it never returns to.
  afterFailure = new StdoutAfterFailure(fd, sayOnStderr);
  afterFailure.failed(refused, linesIn(bytes));
}, Infinity, true);
function sayOnStderr(text: string): void {
  try {
    writeSync(2, text);
  } catch {
    // stderr gone too: nowhere left to say it.
  }
}

const encoder = new AccessLineEncoder(idPrefix);
const line = (view: AccessRecordView) => sink.pushEncoded(encoder, view);
for (;;) {
  const end = ring.each(line);
  sink.flush();
  ring.release(end);
  ring.pause(PAUSE_MS);
}
