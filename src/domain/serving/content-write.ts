import { ContentConflictError, ContentPathError, NotTextError } from '../errors.js';
import type { LayerStack } from './layer-stack.js';
import { entryNamesProblem, isAscii, PARTIAL_SUFFIX, TOMBSTONES_FILE, unsafePathReason, utf8Length } from '../package/package-paths.js';
import { isTextType, mediaTypeEssence } from '../package/media-types.js';

/**
 * The longest name of one file or folder a write may give, in UTF-8 bytes: most file systems
 * hold 255 (NAME_MAX), and a file is written first under its name plus `.<12 hex digits>`
 * and PARTIAL_SUFFIX.
 */
export const MAX_SEGMENT_BYTES = 255 - 13 - PARTIAL_SUFFIX.length;

/**
 * Content paths a write may name: a package entry's safe name (unsafePathReason), short
 * enough for any file system to hold, and none the overlay keeps for itself (its tombstone
 * list, files being written).
 */
export function checkWritableContentPath(path: string): void {
  const unsafe = unsafePathReason(path);
  if (unsafe) throw new ContentPathError(`${path.length > 64 ? `${path.slice(0, 64)}…` : path}: ${unsafe}`);
  const long = path.split('/').find((segment) => utf8Length(segment) > MAX_SEGMENT_BYTES);
  if (long !== undefined) throw new ContentPathError(`${long.slice(0, 64)}…: a file or folder name takes at most ${MAX_SEGMENT_BYTES} bytes`);
  // Folders too: the start of a reactor sweeps every *.pkg-partial under the overlay, a folder of written files with it.
  const reserved = path.split('/').find((name) => name === TOMBSTONES_FILE || name.endsWith(PARTIAL_SUFFIX));
  if (reserved !== undefined) throw new ContentPathError(`${path}: the name ${JSON.stringify(reserved)} is reserved by the overlay`);
}

/** What tools send for a body they did not label (`curl -d`, `curl --data-binary`): judged by its bytes. */
const UNLABELLED = new Set(['application/x-www-form-urlencoded', 'application/octet-stream']);

/** SPEC.md: content writes take text bodies. A declared binary type, invalid UTF-8 or a NUL byte is not text. */
export function checkTextBody(bytes: Uint8Array, contentType: string | undefined): void {
  const type = contentType === undefined ? undefined : mediaTypeEssence(contentType);
  if (type && !UNLABELLED.has(type) && !isTextType(type)) throw new NotTextError(`content writes take text bodies; ${type} is not a text type`);
  if (bytes.includes(0)) throw new NotTextError('content writes take text bodies; the body holds a NUL byte');
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new NotTextError('content writes take text bodies; the body is not valid UTF-8');
  }
}

/**
 * A URL space, like a file system, cannot hold `a.txt` as a file and as a directory at
 * once: refuse a write where a visible file and a directory would meet, before anything
 * is written (a saved package holding both could not be unpacked).
 */
export function checkNoFileDirectoryClash(path: string, visible: LayerStack): void {
  const segments = path.split('/');
  for (let end = 1; end < segments.length; end++) {
    const parent = segments.slice(0, end).join('/');
    if (visible.resolve(parent)) throw new ContentConflictError(`${path} cannot be written: ${parent} is a file, and a file cannot hold another`);
  }
  const inside = visible.firstUnder(path);
  if (inside !== undefined) throw new ContentConflictError(`${path} cannot be written as a file: it is a directory holding ${inside}`);
}

/**
 * Refuse a write of `path` that would not fit among `paths` (an overlay's files as another
 * reactor may have just written them): a file where one of them has a folder or the
 * reverse, or another spelling of one of their names.
 */
export function checkFitsAmong(path: string, paths: readonly string[]): void {
  const problem = entryNamesProblem([...paths.filter((other) => other !== path), path]);
  if (problem) throw new ContentConflictError(`${path} cannot be written: ${problem.name === path ? 'it' : problem.name} ${problem.reason}`);
}

/**
 * Refuse a write to another spelling of a visible name (NFC and NFD, say): the package
 * would no longer save (entryNamesProblem). An ASCII name spells nothing else.
 */
export function checkOneSpelling(path: string, visible: LayerStack): void {
  if (isAscii(path)) return;
  checkFitsAmong(path, visible.visiblePaths());
}

