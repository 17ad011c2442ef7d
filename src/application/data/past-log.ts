import { versionOf, type ItemVersion } from '../../domain/data/item-history.js';
import { LOG_START, type LogPlace } from '../../domain/data/log-place.js';
import { appendedOperations, eachItemLine, operationOn, parseOperationLog, type LogLine, type Operation } from '../../domain/data/operation-log.js';
import type { LogTail } from '../ports/overlay-store.js';

/**
 * Up to this many bytes of whole lines, what was read is held for the next read of the past;
 * past it, held weakly: memory wanted takes it, and the next read reads the whole log again.
 * Held per dataset, with its parsed operations (several times its size): kept small enough
 * that reads of the past on every dataset of a reactor do not pin gigabytes.
 */
export const KEPT_LOG_BYTES = 32 * 1024 * 1024;

/**
 * A dataset's operation log as reads of the past (history, `?at=`) last read it: its whole
 * lines, with each item's lines and the operations parsed as far as they were asked for. A
 * read after a write reads only what was appended since, and the whole log only when the
 * store finds it written anew. Reads take turns, and one asked for at the version of the
 * data the last one was read at reads nothing.
 */
export class PastLog {
  private strong?: KeptLog;
  private weak?: WeakRef<KeptLog>;
  /** The version of the data the kept lines were last read at, and what that read saw past them. */
  private seen?: { generation: number; length: number; last: Operation | undefined };
  /** The read under way or queued last, and the version of the data it was asked at. */
  private queued?: { generation: number; view: Promise<LogView> };

  constructor(
    private readonly read: (from: LogPlace) => Promise<LogTail>,
    private readonly file: string,
    private readonly keptBytes = KEPT_LOG_BYTES,
  ) {}

  /** The log as it is now, for a read of the past asked at `generation` (the data's version: a write moves it). */
  view(generation: number): Promise<LogView> {
    const kept = this.kept();
    if (kept && this.seen?.generation === generation && !this.queued) return Promise.resolve(new LogView(kept, this.seen.length, this.seen.last));
    if (this.queued?.generation === generation) return this.queued.view;
    const view = (this.queued?.view ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.readOn(generation));
    const queued = { generation, view };
    this.queued = queued;
    const done = () => {
      if (this.queued === queued) this.queued = undefined;
    };
    view.then(done, done);
    return view;
  }

  private async readOn(generation: number): Promise<LogView> {
    const before = this.kept();
    const tail = await this.read(before?.place ?? LOG_START);
    // Written anew (or never kept): what was kept is not the log's beginning any more.
    const kept = tail.whole || !before ? new KeptLog(this.file) : before;
    const whole = tail.place.length - kept.place.length;
    kept.extend(tail.bytes.subarray(0, whole), tail.place);
    // What follows the last newline: a torn line (never acknowledged), or an operation written whole but for its newline.
    const last = parseOperationLog(tail.bytes.subarray(whole), this.file).operations[0];
    this.keep(kept);
    this.seen = { generation, length: kept.place.length, last };
    return new LogView(kept, kept.place.length, last);
  }

  private kept(): KeptLog | undefined {
    return this.strong ?? this.weak?.deref();
  }

  private keep(kept: KeptLog): void {
    const strongly = kept.place.length <= this.keptBytes;
    this.strong = strongly ? kept : undefined;
    this.weak = strongly ? undefined : new WeakRef(kept);
  }
}

/** The log as one read of the past saw it: the kept lines up to `length`, then `last`. */
export class LogView {
  constructor(
    private readonly kept: KeptLog,
    private readonly length: number,
    private readonly last: Operation | undefined,
  ) {}

  /** The versions item `id`'s lines make, oldest first: a line, to be read once the page is known, or a version made already. */
  versionsOf(id: string): Array<LogLine | ItemVersion> {
    const lines: Array<LogLine | ItemVersion> = this.kept.linesOf(id, this.length);
    if (this.last?.id === id) lines.push(versionOf(this.last));
    return lines;
  }

  /** The version a line `versionsOf` gave makes. */
  version(line: LogLine): ItemVersion {
    return versionOf(operationOn(this.kept.bytes, line, this.kept.file));
  }

  /** Every operation, in the log's order. */
  operations(): Operation[] {
    const operations = this.kept.operationsUpTo(this.length);
    return this.last ? [...operations, this.last] : operations;
  }
}

/** Whole lines of a log, growing at their end, with what was found in them so far. */
class KeptLog {
  private buffer = new Uint8Array(0);
  place: LogPlace = LOG_START;
  /** Each item's lines, found in the first `indexed` bytes. */
  private readonly byItem = new Map<string, LogLine[]>();
  private indexed = 0;
  /** The operations of the first `parsed` bytes. */
  private readonly operations: Operation[] = [];
  private parsed = 0;

  constructor(readonly file: string) {}

  get bytes(): Uint8Array {
    return this.buffer.subarray(0, this.place.length);
  }

  /** Adds whole lines read after the kept ones; `place` is where they end. */
  extend(lines: Uint8Array, place: LogPlace): void {
    const length = this.place.length + lines.length;
    if (length > this.buffer.length) {
      // Grown by half again at least: a log read after each write is copied a few times, not once a write.
      const grown = new Uint8Array(Math.max(length, Math.floor(this.buffer.length * 1.5)));
      grown.set(this.bytes);
      this.buffer = grown;
    }
    this.buffer.set(lines, this.place.length);
    this.place = place;
  }

  /** Item `id`'s lines among the first `length` bytes. */
  linesOf(id: string, length: number): LogLine[] {
    if (this.indexed < this.place.length) {
      eachItemLine(this.buffer.subarray(this.indexed, this.place.length), (item, line) => {
        const lines = this.byItem.get(item);
        if (lines) lines.push(line);
        else this.byItem.set(item, [line]);
      }, this.indexed);
      this.indexed = this.place.length;
    }
    const lines = this.byItem.get(id) ?? [];
    let count = lines.length;
    while (count > 0 && lines[count - 1]!.end >= length) count--;
    return lines.slice(0, count);
  }

  /** The operations of the first `length` bytes: parsed once as far as the kept lines go, and again only for a view read before lines were added. */
  operationsUpTo(length: number): Operation[] {
    if (length !== this.place.length) return appendedOperations(this.buffer.subarray(0, length));
    if (this.parsed < length) {
      for (const operation of appendedOperations(this.buffer.subarray(this.parsed, length))) this.operations.push(operation);
      this.parsed = length;
    }
    return this.operations;
  }
}
