import { ToolkitError, UsageError } from '../../domain/errors.js';
import type { CliOutput } from './cli-output.js';

/** Exit status of a command line that cannot run as given; failures of a command that ran are 1. */
export const USAGE_EXIT = 2;

/**
 * The CLI's one translation of errors: a single line `error: <TypedError>: <message>`
 * on stderr (or, under `--json`, `{"error": {"name", "message"}}` on stdout, where the
 * reader of JSON looks), exit status 2 for usage errors and 1 for the rest. A stack
 * trace is printed only with PKG_DEBUG set.
 */
export function reportError(output: CliOutput, error: unknown, options: { json?: boolean } = {}): number {
  const name = error instanceof ToolkitError ? error.name : isFileSystemError(error) ? 'FileSystemError' : 'InternalError';
  const message = error instanceof Error ? error.message : String(error);
  if (options.json) output.out(JSON.stringify({ error: { name, message } }, null, 2));
  else output.err(`error: ${name}: ${message}`);
  if (debugging() && error instanceof Error && error.stack) output.err(error.stack);
  return error instanceof UsageError ? USAGE_EXIT : 1;
}

/**
 * What the operating system refused on a path the user gave (a destination that is a
 * file, a folder that cannot be made, a full disk): node's message names the call, the
 * path and the code, which is what the user needs; it is no fault of the toolkit.
 */
function isFileSystemError(error: unknown): boolean {
  const { code, syscall, path } = error as Partial<NodeJS.ErrnoException>;
  return error instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code) && typeof syscall === 'string' && typeof path === 'string';
}

/** PKG_DEBUG=1 (any value but empty, 0 or false) prints stack traces. */
function debugging(): boolean {
  const value = process.env.PKG_DEBUG?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}
