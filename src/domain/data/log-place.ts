/**
 * Where a read of an operation log ended: after its last whole line (a torn line after it
 * is read again next time). Plain data, so it crosses from a cluster's worker to its primary.
 */
export interface LogPlace {
  /** Bytes of whole lines read. */
  length: number;
  /** The last bytes of the last of those lines, in hex: a log written anew since holds other bytes there. */
  check: string;
  /** The store's own name for the place, where it has one (PostgreSQL: the last line's seq). */
  mark?: string;
}

/** Before the first line: a read from here is a read of the whole log. */
export const LOG_START: LogPlace = { length: 0, check: '' };

/** Enough to tell two lines apart: each ends with the time it was written, to the millisecond, after its item. */
const CHECK_BYTES = 32;

/** Where a read ends that took `bytes` after `from`: after their last newline, or at `from` when they hold none. */
export function placeAfter(from: LogPlace, bytes: Uint8Array, mark = from.mark): LogPlace {
  const end = bytes.lastIndexOf(0x0a) + 1;
  if (end === 0) return from;
  const lineStart = end > 1 ? bytes.lastIndexOf(0x0a, end - 2) + 1 : 0;
  const check = bytes.subarray(Math.max(lineStart, end - CHECK_BYTES), end);
  return { length: from.length + end, check: hex(check), ...(mark === undefined ? {} : { mark }) };
}

/** Whether `bytes` are what a log held just before `place`: its last line, as far as the check reaches. */
export function holdsPlace(place: LogPlace, bytes: Uint8Array): boolean {
  return hex(bytes.subarray(bytes.length - place.check.length / 2)) === place.check;
}

/** How many bytes before a place its check covers. */
export function checkLength(place: LogPlace): number {
  return place.check.length / 2;
}

function hex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
  return text;
}
