import { accessLogLine, asciiJson } from '../../shared/json-log-line.js';
import { CLIENT, METHOD, MOUNT, PATH, type AccessRecordView } from './access-record-ring.js';

const latin1 = (text: string): Uint8Array => Buffer.from(text, 'latin1');
const METHOD_KEY = latin1('","method":"');
const PATH_KEY = latin1('","path":');
const STATUS_KEY = latin1(',"status":');
const MS_KEY = latin1(',"ms":');
const CLIENT_KEY = latin1(',"client":');
const MOUNT_KEY = latin1(',"mount":');
const BYTES_KEY = latin1(',"bytes":');
const CLOSE = latin1(',"msg":"request"}');
/** The fixed parts (about 145 bytes), the time (24 to 27 bytes) and four numbers, even as `accessLogLine` writes numbers that are not whole: room to spare. */
const FIXED_BYTES = 320;

/**
 * `accessLogLine`'s bytes, written straight from a record in the access ring into a batch:
 * no string and no object per line. Measured on the writer thread, building the line as a
 * string and copying it cost about a microsecond a line more. A string that needs escaping
 * (rare: a path with a quote or a non-ASCII character) and a number that is not a whole
 * one take `accessLogLine` itself, so the two always write the same line.
 */
export class AccessLineEncoder {
  /** The line up to the request number (its start, the time of `headTime`, the id's prefix), made once per millisecond: at tens of thousands of lines a second most share one. */
  private head: Uint8Array = new Uint8Array(0);
  private headTime = Number.NaN;

  constructor(private readonly idPrefix: string) {}

  /** The most bytes the record's line can take: every unit of its strings escaped as `\uXXXX`. */
  limit(view: AccessRecordView): number {
    const lengths = view.lengths;
    return FIXED_BYTES + this.idPrefix.length + lengths[METHOD]! + 6 * (lengths[PATH]! + Math.max(lengths[CLIENT]!, 0) + lengths[MOUNT]!);
  }

  /** Writes the record's line (no newline) into `out` from `at`; where it ends. */
  encode(view: AccessRecordView, out: Uint8Array, at: number): number {
    if (!wholeNumbers(view)) return text(out, at, accessLogLine(this.idPrefix + view.count, view.record(), view.time));
    let end = copy(out, at, this.headAt(view.time));
    end = integer(out, end, view.count);
    end = copy(out, end, METHOD_KEY);
    end = raw(out, end, view, METHOD);
    end = copy(out, end, PATH_KEY);
    end = string(out, end, view, PATH);
    end = copy(out, end, STATUS_KEY);
    end = integer(out, end, view.status);
    end = copy(out, end, MS_KEY);
    const fraction = view.micros % 1000;
    end = integer(out, end, (view.micros - fraction) / 1000);
    out[end] = 0x2e;
    out[end + 1] = 0x30 + Math.floor(fraction / 100);
    out[end + 2] = 0x30 + (Math.floor(fraction / 10) % 10);
    out[end + 3] = 0x30 + (fraction % 10);
    end += 4;
    if (view.lengths[CLIENT]! >= 0) {
      end = copy(out, end, CLIENT_KEY);
      end = string(out, end, view, CLIENT);
    }
    end = copy(out, end, MOUNT_KEY);
    end = string(out, end, view, MOUNT);
    end = copy(out, end, BYTES_KEY);
    end = integer(out, end, view.bytes);
    return copy(out, end, CLOSE);
  }

  private headAt(time: number): Uint8Array {
    if (time !== this.headTime) {
      this.head = latin1(`{"level":30,"time":"${new Date(time).toISOString()}","reqId":"${this.idPrefix}`);
      this.headTime = time;
    }
    return this.head;
  }
}

function wholeNumbers(view: AccessRecordView): boolean {
  return Number.isSafeInteger(view.count) && view.count >= 0 && Number.isSafeInteger(view.micros) && view.micros >= 0 && Number.isSafeInteger(view.bytes) && view.bytes >= 0;
}

function copy(out: Uint8Array, at: number, bytes: Uint8Array): number {
  out.set(bytes, at);
  return at + bytes.length;
}

/** The decimal digits of a whole number, as a template literal writes them. */
function integer(out: Uint8Array, at: number, value: number): number {
  let end = at + 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) end++;
  let rest = value;
  for (let i = end - 1; i > at; i--) {
    const next = Math.floor(rest / 10);
    out[i] = 0x30 + (rest - 10 * next);
    rest = next;
  }
  out[at] = 0x30 + rest;
  return end;
}

/** A string written as it is, a byte per unit, as the sink copies a line: the method, a token. */
function raw(out: Uint8Array, at: number, view: AccessRecordView, field: number): number {
  const { units } = view;
  const start = view.starts[field]!;
  const length = view.lengths[field]!;
  for (let i = 0; i < length; i++) out[at + i] = units[start + i]! & 0xff;
  return at + length;
}

/** A string as `asciiJson` writes it: quoted as it is when it needs no escape, else by `asciiJson` itself. */
function string(out: Uint8Array, at: number, view: AccessRecordView, field: number): number {
  const { units } = view;
  const start = view.starts[field]!;
  const length = view.lengths[field]!;
  out[at] = 0x22;
  for (let i = 0; i < length; i++) {
    const unit = units[start + i]!;
    if (unit < 0x20 || unit > 0x7e || unit === 0x22 || unit === 0x5c) return text(out, at, asciiJson(view.text(field)!));
    out[at + 1 + i] = unit;
  }
  out[at + 1 + length] = 0x22;
  return at + length + 2;
}

/** A line as the sink copies one (`pushAscii`): a byte per unit. */
function text(out: Uint8Array, at: number, line: string): number {
  for (let i = 0; i < line.length; i++) out[at + i] = line.charCodeAt(i) & 0xff;
  return at + line.length;
}
