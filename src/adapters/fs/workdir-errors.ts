import { relative, sep } from 'node:path';
import { OverlayError } from '../../domain/errors.js';

/**
 * A path of the workdir as an error names it: from the workdir down. Errors reach clients
 * (503 `OVERLAY`), who have no business knowing where the server keeps its files; the
 * operator knows the workdir.
 */
export function inWorkdir(workdir: string, path: string): string {
  return `${relative(workdir, path).split(sep).join('/')} in the workdir`;
}

/** An error of the file system, said without the absolute paths node's message holds (`EISDIR: illegal operation on a directory, rename '/…' -> '/…'`). */
export function overlayError(message: string, cause: unknown): OverlayError {
  const { code, message: said } = cause as NodeJS.ErrnoException;
  return new OverlayError(`${message}: ${code ? (said.split(', ')[0] ?? said) : said}`, { cause });
}
