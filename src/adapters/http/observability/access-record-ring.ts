import type { AccessEntry } from '../../shared/json-log-line.js';

/** An access line's facts, as the event loop hands them over: its entry, its time and its request number. */
export interface AccessRecord extends AccessEntry {
  /** Milliseconds since the epoch when the answer was written. */
  time: number;
  /** The request's number: its id is the reactor's prefix and this. */
  count: number;
}

/** The four strings of a record, as `AccessRecordView` numbers them. */
export const METHOD = 0;
export const PATH = 1;
export const CLIENT = 2;
export const MOUNT = 3;

/**
 * One record in the ring, read in place: its numbers, and where each string's UTF-16 units
 * start in `units` and how many there are (-1: no client).
 */
export class AccessRecordView {
  time = 0;
  count = 0;
  status = 0;
  micros = 0;
  bytes = 0;
  readonly starts = new Int32Array(4);
  readonly lengths = new Int32Array(4);

  constructor(readonly units: Uint16Array) {}

  /** A string of the record (METHOD, PATH, CLIENT, MOUNT) as a JavaScript string; undefined for no client. */
  text(field: number): string | undefined {
    const length = this.lengths[field]!;
    if (length < 0) return undefined;
    const start = this.starts[field]!;
    return Buffer.from(this.units.buffer, 2 * start, 2 * length).toString('utf16le');
  }

  /** The record as an object of its own, which outlives the view's move to the next. */
  record(): AccessRecord {
    return { time: this.time, count: this.count, method: this.text(METHOD)!, path: this.text(PATH)!, status: this.status, micros: this.micros, client: this.text(CLIENT), mount: this.text(MOUNT)!, bytes: this.bytes };
  }
}

// A record: its length, the status, four numbers, the four strings' lengths, the strings.
const LENGTH = 0; // u32 slot; 0 marks the rest of the buffer as skipped
const STATUS = 1; // u32 slot
const TIME = 1; // f64 slots from here
const COUNT = 2;
const MICROS = 3;
const BYTES = 4;
const METHOD_BYTES = 10; // u32 slots from here: method, path, client, mount
const NO_CLIENT = 0xffffffff;
const HEADER = 56;

// Control slots, shared by the two threads.
const WRITTEN = 0; // where the event loop has written to
const TAKEN = 1; // where the writer thread has written out to
const SLEEPING = 2; // 1: the writer thread waits for a record, and the next one wakes it
const WANTED = 3; // 1: the event loop waits for room, and the next release wakes it
const URGENT = 4; // 1: write out now (a flush), not after the writer's pause

/**
 * Access records passed from the event loop to the thread that writes the JSON lines, in a
 * ring of shared memory: the event loop copies a request's few numbers and strings into
 * it (measured, about a tenth of what building and writing the line there costs) and goes
 * on; the thread builds the lines and writes them. No record is dropped: when the writer
 * is behind by a whole ring (stdout not read), the event loop waits for room, as a
 * synchronous write to stdout would.
 *
 * Positions run over twice the capacity, so a full ring and an empty one differ; strings
 * travel as UTF-16, which keeps every JavaScript string exactly, lone surrogates included.
 */
export class AccessRecordRing {
  private readonly units: Uint16Array;
  private readonly words: Uint32Array;
  private readonly numbers: Float64Array;
  private readonly state: Int32Array;
  private readonly capacity: number;
  private readonly mask: number;
  /** The event loop's own copies: only it moves `written`; `taken` is read again only when the ring looks full. */
  private written: number;
  private takenSeen: number;
  private readonly view: AccessRecordView;

  static create(capacity = 1 << 20): AccessRecordRing {
    if (capacity < 1024 || (capacity & (capacity - 1)) !== 0) throw new RangeError('an access ring holds a power of two bytes, at least 1 KiB');
    return new AccessRecordRing(new SharedArrayBuffer(capacity), new SharedArrayBuffer(8 * Int32Array.BYTES_PER_ELEMENT));
  }

  /** The memory to hand to the other thread, which opens the same ring with it. */
  constructor(
    readonly data: SharedArrayBuffer,
    readonly control: SharedArrayBuffer,
  ) {
    this.units = new Uint16Array(data);
    this.words = new Uint32Array(data);
    this.numbers = new Float64Array(data);
    this.state = new Int32Array(control);
    this.capacity = data.byteLength;
    this.mask = 2 * this.capacity - 1;
    this.written = Atomics.load(this.state, WRITTEN);
    this.takenSeen = Atomics.load(this.state, TAKEN);
    this.view = new AccessRecordView(this.units);
  }

  /** The event loop's side: one request's record, waiting for room if the writer is a whole ring behind. */
  put(count: number, time: number, entry: AccessEntry): void {
    // A string longer than a thirty-second of the ring is cut, so a record and the end of the
    // ring it may skip always fit: the HTTP parser's header limit keeps real paths and
    // addresses far below, and methods and mounts are short.
    const limit = this.capacity >> 5;
    const method = cut(entry.method, limit);
    const path = cut(entry.path, limit);
    const client = entry.client === undefined ? undefined : cut(entry.client, limit);
    const mount = cut(entry.mount, limit);
    const length = (HEADER + 2 * (method.length + path.length + (client?.length ?? 0) + mount.length) + 7) & ~7;
    let at = this.written & (this.capacity - 1);
    const skip = at + length > this.capacity ? this.capacity - at : 0;
    this.room(skip + length);
    if (skip > 0) {
      this.words[at >> 2] = 0;
      at = 0;
    }
    const word = at >> 2;
    const number = at >> 3;
    this.words[word + STATUS] = entry.status;
    this.numbers[number + TIME] = time;
    this.numbers[number + COUNT] = count;
    this.numbers[number + MICROS] = entry.micros;
    this.numbers[number + BYTES] = entry.bytes;
    let unit = (at + HEADER) >> 1;
    unit = this.copy(method, unit);
    unit = this.copy(path, unit);
    if (client !== undefined) unit = this.copy(client, unit);
    this.copy(mount, unit);
    this.words[word + METHOD_BYTES] = 2 * method.length;
    this.words[word + METHOD_BYTES + 1] = 2 * path.length;
    this.words[word + METHOD_BYTES + 2] = client === undefined ? NO_CLIENT : 2 * client.length;
    this.words[word + METHOD_BYTES + 3] = 2 * mount.length;
    this.words[word + LENGTH] = length;
    this.written = (this.written + skip + length) & this.mask;
    Atomics.store(this.state, WRITTEN, this.written);
    if (Atomics.load(this.state, SLEEPING) === 1 && Atomics.compareExchange(this.state, SLEEPING, 1, 0) === 1) Atomics.notify(this.state, SLEEPING);
  }

  /** A string's UTF-16 units from unit `at`; where they end. A loop: for the short strings of a request, Buffer's write costs three times as much. */
  private copy(text: string, at: number): number {
    const units = this.units;
    for (let i = 0; i < text.length; i++) units[at + i] = text.charCodeAt(i);
    return at + text.length;
  }

  /**
   * The event loop's side: waits (at most `timeoutMs`) until the writer has written out
   * every record put so far. Whether it has.
   */
  flush(timeoutMs: number): boolean {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const taken = Atomics.load(this.state, TAKEN);
      if (taken === this.written) return true;
      const left = until - Date.now();
      if (left <= 0) return false;
      Atomics.store(this.state, WANTED, 1);
      this.wakeWriter();
      Atomics.wait(this.state, TAKEN, taken, Math.min(left, 50));
    }
  }

  /** The writer's side: every record put so far, in order, and where they end, for `release` once they are written out. */
  take(visit: (record: AccessRecord) => void): number {
    return this.each((view) => visit(view.record()));
  }

  /**
   * The writer's side, without building anything: each record put so far, in order, seen
   * through one view that moves from record to record (its strings stay in the ring's
   * memory); where they end, for `release` once they are written out.
   */
  each(visit: (view: AccessRecordView) => void): number {
    const written = Atomics.load(this.state, WRITTEN);
    const view = this.view;
    let position = Atomics.load(this.state, TAKEN);
    while (position !== written) {
      const at = position & (this.capacity - 1);
      const word = at >> 2;
      const length = this.words[word + LENGTH]!;
      if (length === 0) {
        position = (position + this.capacity - at) & this.mask;
        continue;
      }
      const number = at >> 3;
      view.time = this.numbers[number + TIME]!;
      view.count = this.numbers[number + COUNT]!;
      view.status = this.words[word + STATUS]!;
      view.micros = this.numbers[number + MICROS]!;
      view.bytes = this.numbers[number + BYTES]!;
      let unit = (at + HEADER) >> 1;
      for (let field = 0; field < 4; field++) {
        const bytes = this.words[word + METHOD_BYTES + field]!;
        view.starts[field] = unit;
        view.lengths[field] = bytes === NO_CLIENT ? -1 : bytes >> 1;
        if (bytes !== NO_CLIENT) unit += bytes >> 1;
      }
      visit(view);
      position = (position + length) & this.mask;
    }
    return position;
  }

  /** The writer's side: the records up to `position` are written out; their room is free again. */
  release(position: number): void {
    Atomics.store(this.state, TAKEN, position);
    if (Atomics.load(this.state, WANTED) === 1) {
      Atomics.store(this.state, WANTED, 0);
      Atomics.notify(this.state, TAKEN);
    }
  }

  /**
   * The writer's side: after writing, lets records gather for `pauseMs` (a write per request
   * would cost more than the requests), unless a flush or a full ring asks for them sooner;
   * when none came meanwhile, sleeps until the next one.
   */
  pause(pauseMs: number): void {
    if (Atomics.load(this.state, URGENT) === 0) Atomics.wait(this.state, URGENT, 0, pauseMs);
    Atomics.store(this.state, URGENT, 0);
    if (Atomics.load(this.state, WRITTEN) !== Atomics.load(this.state, TAKEN)) return;
    Atomics.store(this.state, SLEEPING, 1);
    // A record put between the check above and this one has seen SLEEPING and will wake it.
    if (Atomics.load(this.state, WRITTEN) === Atomics.load(this.state, TAKEN)) Atomics.wait(this.state, SLEEPING, 1);
    Atomics.store(this.state, SLEEPING, 0);
  }

  /** Room for `bytes` more, waiting for the writer if need be: it is woken, and wakes this side when it has released some. */
  private room(bytes: number): void {
    while (this.capacity - ((this.written - this.takenSeen) & this.mask) < bytes) {
      this.takenSeen = Atomics.load(this.state, TAKEN);
      if (this.capacity - ((this.written - this.takenSeen) & this.mask) >= bytes) return;
      Atomics.store(this.state, WANTED, 1);
      this.wakeWriter();
      Atomics.wait(this.state, TAKEN, this.takenSeen, 100);
    }
  }

  /** Asks the writer to write out now: out of its pause, or out of its sleep. */
  private wakeWriter(): void {
    Atomics.store(this.state, URGENT, 1);
    Atomics.notify(this.state, URGENT);
    if (Atomics.compareExchange(this.state, SLEEPING, 1, 0) === 1) Atomics.notify(this.state, SLEEPING);
  }
}

function cut(text: string, limit: number): string {
  return text.length > limit ? text.slice(0, limit) : text;
}
