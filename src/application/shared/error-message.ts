import { ToolkitError } from '../../domain/errors.js';

/** A failure as a report line: typed errors say what is wrong; anything else is flagged as unexpected. */
export function messageOf(error: unknown): string {
  return error instanceof ToolkitError ? error.message : `unexpected error: ${(error as Error).message}`;
}
