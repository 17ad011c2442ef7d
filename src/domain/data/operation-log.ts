import { ConfigParseError } from '../errors.js';
import { isRecord } from '../package/documents.js';
import { checkItemId, type Item } from './item-id.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

/** One line of a dataset's overlay log: `{"op": "create"|"replace"|"delete", "id", "item"?}`. */
/** `at`: the UTC time of the write, on operations read back from a log that recorded it. */
export type Operation = ({ op: 'create' | 'replace'; id: string; item: Item } | { op: 'delete'; id: string }) & { at?: string };

/** One log line: the operation and `at`, the UTC time it was written (lines without it, from older versions, load alike). */
export function formatOperation(operation: Operation, at: Date): string {
  // Fields named, not spread: JSON.stringify takes an object literal's fixed shape in its fast path (measured 1.5 against 2.4 us an item).
  const line = operation.op === 'delete' ? { op: operation.op, id: operation.id, at: at.toISOString() } : { op: operation.op, id: operation.id, item: operation.item, at: at.toISOString() };
  return JSON.stringify(line) + '\n';
}

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
      if (!operation) throw new ConfigParseError(file, `not an overlay operation: {"op", "id", "item"?} expected, an item nesting at most ${MAX_JSON_DEPTH} levels`, line, 1);
      operations.push(operation);
    }
    start = end + 1;
    line++;
  }
  return { operations, validLength: bytes.length };
}

/**
 * The operations of lines another writer appended while this one served, each readable
 * line applied and an unreadable one passed over: every reader passes it over alike, so
 * they stay the same, where stopping at it dropped the good lines read with it. (At load,
 * parseOperationLog stops at it instead, so an operator hears of it.)
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
