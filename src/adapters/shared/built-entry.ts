import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The file of a bundle entry the reactor starts as a thread or a process (built beside
 * dist/pkg.js), or undefined when run from source, where there is none and the work is
 * done in process.
 */
export function builtEntry(url: URL): string | undefined {
  const file = fileURLToPath(url);
  return existsSync(file) ? file : undefined;
}
