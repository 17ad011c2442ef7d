import { stdoutFailed, writeStdout } from '../shared/stdout-after-failure.js';
import { terminalSafe } from './terminal-text.js';

/** Where the CLI writes; the process streams in production, buffers in tests. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

let whenUnread: 'end' | 'drop' = 'end';

// A reader that stops early (`pkg package info x | head`) closes the pipe: it has read
// what it wanted, so that is a quiet end, never an unhandled error with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    // A serving reactor's output that cannot be written, a closed pipe or a file on a full or failing disk, is no reason to stop serving.
    if (whenUnread === 'drop') return stream === process.stdout ? stdoutFailed(error) : undefined;
    if (error.code !== 'EPIPE') throw error;
    // The stream is destroyed now: what is written to it later goes nowhere, quietly.
    process.exit(process.exitCode ?? 0);
  });
}

/**
 * For a command that serves until it is stopped (`pkg reactor serve | head -3`): output
 * nobody reads is no reason to stop serving, nor to stop without its shutdown (answering
 * the requests in flight, removing the temporary workdir). Its lines are dropped instead,
 * as the JSON access-log thread drops its own, until stdout takes writes again (see StdoutAfterFailure).
 */
export function keepRunningUnread(): void {
  whenUnread = 'drop';
}

/** What reaches the terminal shows every character a package or registry put in it, and acts on none (see terminalSafe). */
export const processOutput: CliOutput = {
  out: (text) => writeStdout(lineOf(text)),
  err: (text) => void process.stderr.write(lineOf(text)),
};

function lineOf(text: string): string {
  const safe = terminalSafe(text);
  return safe.endsWith('\n') ? safe : safe + '\n';
}

/** `--json`: every command that reports takes it. */
export const JSON_OPTION = { json: { type: 'boolean', default: false, describe: 'print as JSON (errors too, as {"error": {name, message}})' } } as const;

export function printJson(output: CliOutput, value: unknown): void {
  output.out(JSON.stringify(value, null, 2));
}
