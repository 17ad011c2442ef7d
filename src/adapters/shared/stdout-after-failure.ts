import { writeSync } from 'node:fs';

/** Failures after which stdout never takes a write again: its reader closed the pipe, or the descriptor is gone. */
const PERMANENT = new Set(['EPIPE', 'EBADF']);

/**
 * A serving reactor's stdout (its access log) once a write to it failed. A closed pipe
 * takes nothing again, quietly: its reader went away. A full or failing disk may take
 * writes again once room is made, so each later batch is tried straight on the descriptor
 * (the stream that failed is destroyed) and the log flows again without a restart. The
 * lines dropped meanwhile are counted, and said on stderr once when stdout fails and once
 * when it takes writes again.
 */
export class StdoutAfterFailure {
  private state: 'closed' | 'failing' | 'written' = 'written';
  private dropped = 0;

  constructor(
    private readonly fd: number,
    private readonly say: (text: string) => void,
  ) {}

  failed(error: NodeJS.ErrnoException, lines = 0): void {
    this.dropped += lines;
    if (this.state === 'closed') return;
    if (PERMANENT.has(error.code ?? '')) {
      this.state = 'closed';
      return;
    }
    if (this.state === 'failing') return;
    this.state = 'failing';
    this.say(`reactor: stdout cannot be written (${error.message}): its lines, the access log's among them, are dropped until it takes writes again\n`);
  }

  write(bytes: Uint8Array): void {
    if (this.state === 'closed') return;
    try {
      for (let written = 0; written < bytes.length; ) {
        const taken = writeSync(this.fd, bytes, written);
        // Never met on a file; a loop that waited on it would never end.
        if (taken === 0) throw Object.assign(new Error('stdout took none of the bytes written'), { code: 'EIO' });
        written += taken;
      }
    } catch (error) {
      return this.failed(error as NodeJS.ErrnoException, linesIn(bytes));
    }
    if (this.state !== 'failing') return;
    this.state = 'written';
    this.say(`reactor: stdout takes writes again; ${this.dropped} line${this.dropped === 1 ? ' was' : 's were'} dropped meanwhile\n`);
    this.dropped = 0;
  }
}

/** The lines a batch holds, to count those dropped. */
export function linesIn(bytes: Uint8Array): number {
  let lines = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) lines++;
  return lines;
}

let afterFailure: StdoutAfterFailure | undefined;

/** This thread's stdout lines: through process.stdout until it fails (see stdoutFailed), then as StdoutAfterFailure writes them. */
export function writeStdout(bytes: string | Uint8Array): void {
  if (afterFailure === undefined) process.stdout.write(bytes);
  else afterFailure.write(typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
}

/**
 * A writer of stdout failed (process.stdout, destroyed then, or the JSON access log's
 * asynchronous destination), dropping `lines`: what follows is written as StdoutAfterFailure writes it.
 */
export function stdoutFailed(error: NodeJS.ErrnoException, lines = 0): void {
  afterFailure ??= new StdoutAfterFailure(1, (text) => void process.stderr.write(text));
  afterFailure.failed(error, lines);
}
