import type { Warnings } from '../../application/ports/warnings.js';
import { processOutput } from './cli-output.js';

/** Warnings as the CLI and the reactor print them: `warning: <message>` on stderr. */
export class StderrWarnings implements Warnings {
  warn(message: string): void {
    processOutput.err(`warning: ${message}`);
  }
}
