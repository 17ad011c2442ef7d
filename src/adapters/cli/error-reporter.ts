import { PackageError } from '../../domain/errors.js';
import type { CliOutput } from './cli-output.js';

/**
 * The CLI's one translation of errors: a single line `error: <TypedError>: <message>`
 * on stderr and exit status 1. A stack trace is printed only with PKG_DEBUG set.
 */
export function reportError(output: CliOutput, error: unknown): number {
  const name = error instanceof PackageError ? error.name : 'InternalError';
  output.err(`error: ${name}: ${error instanceof Error ? error.message : String(error)}`);
  if (process.env.PKG_DEBUG && error instanceof Error && error.stack) output.err(error.stack);
  return 1;
}
