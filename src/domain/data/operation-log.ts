import { ConfigParseError } from '../errors.js';
import { isRecord } from '../package/documents.js';
import { checkItemId, type Item } from './item-id.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

/** One line of a dataset's overlay log: `{"op": "create"|"replace"|"delete", "id", "item"?}`. */
/** `at`: the UTC time of the write, on operations read back from a log that recorded it. */
export type Operation = ({ op: 'create' | 'replace'; id: string; item: Item } | { op: 'delete'; id: string }) & { at?: string };

/** One log line: the operation and `at`, the UTC time it was written (lines without it, from older versions, load alike). */
export function formatOperation(operation: Operation, at: Date, itemJson = operation.op === 'delete' ? undefined : JSON.stringify(operation.item)): string {
  // Put together around the item's JSON, which the writer has measured already: one serialization of the item a write.
  const head = `{"op":"${operation.op}","id":${JSON.stringify(operation.id)}`;
  return `${itemJson === undefined ? head : `${head},"item":${itemJson}`},"at":"${at.toISOString()}"}\n`;
}

const NOT_AN_OPERATION = `not an overlay operation: {"op", "id", "item"?} expected, an item nesting at most ${MAX_JSON_DEPTH} levels`;

export interface ParsedLog {
  operations: Operation[];
  /** Bytes of the log that hold whole operations; anything after them is a torn last line. */
  validLength: number;
  /** The torn last line, when a write was cut short (the process died mid-append). */
  tornTail?: string;
}

/**
 * Reads a log written by appends. Only the last line can be torn (a crash mid-append),
 * and it is reported, not fatal: it was never acknowledged. A bad line before the end
 * is corruption, and loading stops with its file and line rather than drop writes.
 */
export function parseOperationLog(bytes: Uint8Array, file: string): ParsedLog {
  const operations: Operation[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let start = 0;
  let line = 1;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    if (end < 0) {
      const tail = decoder.decode(bytes.subarray(start));
      const operation = tryOperation(tail);
      // A whole operation missing only its newline was written completely: keep it.
      if (operation) return { operations: [...operations, operation], validLength: bytes.length };
      return { operations, validLength: start, tornTail: tail };
    }
    const text = decoder.decode(bytes.subarray(start, end));
    if (text.trim() !== '') {
      const operation = tryOperation(text);
      if (!operation) throw new ConfigParseError(file, NOT_AN_OPERATION, line, 1);
      operations.push(operation);
    }
    start = end + 1;
    line++;
  }
  return { operations, validLength: bytes.length };
}

/** Where one line of a log lies: from `start` to `end`, its newline excluded. */
export interface LogLine {
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CANONICAL_HEADS = (['create', 'replace', 'delete'] as const).map((op) => new TextEncoder().encode(`{"op":"${op}","id":"`));

/**
 * The lines of a log that write item `id`, in order, found without parsing the lines of
 * other items: a line as this reactor writes it names its id first, and only that is
 * read. Any other line is parsed whole; one that is no operation (a torn last line,
 * another writer's that a catch-up passed over) is passed over too, so the past agrees
 * with the data served.
 */
export function linesOfItem(bytes: Uint8Array, id: string): LogLine[] {
  const found: LogLine[] = [];
  eachItemLine(bytes, (named, line) => {
    if (named === id) found.push(line);
  });
  return found;
}

/** Tells `visit` the item id of each line of `bytes`, which lie at `offset` in a log (the places it is told are the log's), as linesOfItem finds them. */
export function eachItemLine(bytes: Uint8Array, visit: (id: string, line: LogLine) => void, offset = 0): void {
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline < 0 ? bytes.length : newline;
    // The last line may be torn: it is parsed whole, as every line unlike ours is.
    const id = (newline < 0 ? undefined : idOfCanonicalLine(bytes, start, end)) ?? tryOperation(new TextDecoder().decode(bytes.subarray(start, end)))?.id;
    if (id !== undefined) visit(id, { start: offset + start, end: offset + end });
    start = end + 1;
  }
}

/** The operation of one line `linesOfItem` or `eachItemLine` found. */
export function operationOn(bytes: Uint8Array, line: LogLine, file: string): Operation {
  const operation = tryOperation(new TextDecoder().decode(bytes.subarray(line.start, line.end)));
  if (!operation) throw new ConfigParseError(file, NOT_AN_OPERATION);
  return operation;
}

/** The id of a line that begins as formatOperation begins one (`{"op":"create","id":"...",`); undefined for any other. */
function idOfCanonicalLine(bytes: Uint8Array, start: number, end: number): string | undefined {
  const head = CANONICAL_HEADS.find((prefix) => end - start > prefix.length && prefix.every((byte, i) => bytes[start + i] === byte));
  if (!head) return undefined;
  let at = start + head.length;
  while (at < end && bytes[at] !== QUOTE) at += bytes[at] === BACKSLASH ? 2 : 1;
  // A whole line only: the id's string closes, and the fields go on after it.
  if (at >= end || bytes[at + 1] !== 0x2c || bytes[end - 1] !== 0x7d) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes.subarray(start + head.length - 1, at + 1))) as string;
  } catch {
    return undefined;
  }
}

/**
 * The operations of lines another writer appended while this one served, each readable
 * line applied and an unreadable one passed over: every reader passes it over alike, so
 * they stay the same, where stopping at it dropped the good lines read with it. (At load,
 * parseOperationLog stops at it instead, so an operator hears of it.) Reads of the past
 * read the log so too, and agree with the data served.
 */
export function appendedOperations(bytes: Uint8Array): Operation[] {
  const operations: Operation[] = [];
  for (const line of new TextDecoder().decode(bytes).split('\n')) {
    const operation = line.trim() === '' ? undefined : tryOperation(line);
    if (operation) operations.push(operation);
  }
  return operations;
}

function tryOperation(text: string): Operation | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  let id: string;
  try {
    id = checkItemId(value.id);
  } catch {
    return undefined;
  }
  const at = typeof value.at === 'string' && !Number.isNaN(Date.parse(value.at)) ? { at: value.at } : {};
  if (value.op === 'delete') return { op: 'delete', id, ...at };
  // Bounded as a written item is: a deeper one, put in the log by other means, would fail every answer that serializes it.
  if ((value.op === 'create' || value.op === 'replace') && isRecord(value.item) && !nestsDeeperThan(value.item, MAX_JSON_DEPTH)) return { op: value.op, id, item: value.item, ...at };
  return undefined;
}
