import { ItemNotFoundError, DuplicateIdError, IdMismatchError, NotACollectionError, SchemaViolationError, DatasetFullError, HistoryTooLargeError, type PackageError } from '../../domain/errors.js';
import type { DatasetIndex} from '../../domain/data/dataset-index.js';
import { bytesChange, itemBytes, nextFreeId } from '../../domain/data/dataset-index.js';
import { asItem, checkItemId, checkNewItemId, itemsKeepingIds, type IdPolicy, type Item } from '../../domain/data/item-id.js';
import { appendedOperations, formatOperation, type Operation } from '../../domain/data/operation-log.js';
import { baseVersion, stateAt, type ItemVersion } from '../../domain/data/item-history.js';
import type { LogPlace } from '../../domain/data/log-place.js';
import { MAX_DATA_DOCUMENT_BYTES } from '../package/package-reader.js';
import { CollectionQueries, selectEntries, type QueryAnswer } from './collection-queries.js';
import type { AppendLog, LogTail } from '../ports/overlay-store.js';
import { PastLog, type LogView } from './past-log.js';
import type { Clock } from '../ports/clock.js';
import type { CompiledSchema } from '../ports/schema-validator.js';
import { checkItemPreconditions, type ItemPreconditions } from './item-preconditions.js';

export interface Collection {
  /** The whole collection as JSON, serialized once per change. */
  body: Uint8Array;
  /** The items, when the dataset is a list of them. */
  items?: readonly unknown[];
}

export interface StoredItem {
  id: string;
  item: unknown;
}

/** What the overlay knows of one dataset at load: how to open its log for the first write. */
export interface DatasetLog {
  open(): Promise<AppendLog>;
  /** The log past a place an earlier read ended at (see PackageOverlay.readLogFrom): what history and `?at=` read. */
  readFrom(from: LogPlace): Promise<LogTail>;
  /** Its name, for messages. */
  file: string;
  /** Its last operation was written whole but for its newline (an editor's save, a write cut just before it). */
  unended?: boolean;
  /** The time each line records. */
  clock: Clock;
}

interface Staged {
  has(id: string): boolean;
  get(id: string): unknown;
  nextId(): number;
}

/** A write waiting its turn; one held while its package is loaded again moves to the new version's dataset. */
export interface Pending {
  decide(view: Staged): Operation;
  resolve(operation: Operation): void;
  reject(error: unknown): void;
}

/** What one dataset may hold, and what one answer of an item's history may. */
export interface DatasetLimits {
  /** The collection's JSON, in bytes: what a dataset's file may hold, so a saved package loads again. */
  datasetBytes: number;
  /** The JSON of the versions one history answer holds (one version is always answered: it fitted in the dataset). */
  historyBytes: number;
}

export const DATASET_LIMITS: DatasetLimits = { datasetBytes: MAX_DATA_DOCUMENT_BYTES, historyBytes: 32 * 1024 * 1024 };

/** A page of an item's versions, oldest first, and how many it has in all. */
export interface HistoryPage {
  versions: ItemVersion[];
  total: number;
}

/** How long a batch of writes waits at most for the writers of the last one (`gather`). */
const GATHER_MS = 1;

/**
 * One dataset as the reactor holds it: base items plus the overlay log folded into an
 * index at load. A write is decided against the current items (and the writes queued
 * ahead of it), appended to the log, and only then applied and acknowledged. Writes
 * queue one behind another, and those that arrive while an append is in flight are
 * appended together with one sync, so concurrency loses nothing and costs little.
 */
export class Dataset {
  private collectionCache?: { generation: number; collection: Collection };
  private readonly queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  /** Writes are held, not appended, while the package is loaded again (`--watch`). */
  private paused = false;
  private appendLog?: AppendLog;
  private counter = 1;
  private queries?: CollectionQueries;
  /** The catch-up with the shared log under way, and the one queued behind it for those who asked meanwhile. */
  private catching: Promise<void> | undefined;
  private queuedCatchUp: Promise<void> | undefined;
  /** How many writes the last batch held, with those queued while it was appended: the next waits a moment for as many (`gather`). */
  private gatherFor = 1;
  private gathered: (() => void) | undefined;
  /** The log's last operation lacks its newline: the first append gives it one. */
  private unended: boolean;
  /** The log as reads of the past last read it: the next reads only what was appended since. */
  private pastLog?: PastLog;

  constructor(
    readonly id: string,
    /** `base`: the package's own items, before any write (history starts from them). */
    private readonly data: { index: DatasetIndex; base?: readonly unknown[] } | { document: unknown },
    readonly schema: { raw: unknown; validate: CompiledSchema } | undefined,
    private readonly policy: IdPolicy,
    private readonly log: DatasetLog | undefined,
    /** Why writes are refused, when they are. */
    private readonly refusal: PackageError | undefined,
    private readonly limits: DatasetLimits = DATASET_LIMITS,
  ) {
    this.unended = log?.unended ?? false;
  }

  get isCollection(): boolean {
    return 'index' in this.data;
  }

  /** Whether writes are taken: a list of items, with nothing refusing them. */
  get writable(): boolean {
    return 'index' in this.data && this.refusal === undefined;
  }

  collection(): Collection {
    if (!('index' in this.data)) return (this.collectionCache ??= { generation: 0, collection: { body: encode(this.data.document) } }).collection;
    const { index } = this.data;
    if (this.collectionCache?.generation !== index.generation) {
      const items = index.list();
      this.collectionCache = { generation: index.generation, collection: { body: encode(items), items } };
    }
    return this.collectionCache.collection;
  }

  /** The data of a dataset that is one document (not a list of items). */
  document(): unknown {
    if ('index' in this.data) throw new NotACollectionError(`dataset ${this.id} is a list of items, not one document`);
    return this.data.document;
  }

  /** How many items the collection holds now. */
  get size(): number {
    return this.index().size;
  }

  /** The items for the dataset's file, each keeping the id it is served under (save). */
  itemsToSave(): unknown[] {
    return itemsKeepingIds(this.entries(), this.policy, this.schema?.raw);
  }

  /** `[id, item]` pairs in collection order. */
  entries(): Array<[string, unknown]> {
    return this.index().entries();
  }

  item(id: string): unknown {
    const item = this.index().get(id);
    if (item === undefined) throw new ItemNotFoundError(`no item ${id} in dataset ${this.id}`);
    return item;
  }

  /** The items a query (`a=1&sort=-b`, as in a URL) selects: filters, `q`, `sort`, a page; answered once per version of the data. */
  query(text: string): QueryAnswer {
    const index = this.index();
    this.queries ??= new CollectionQueries(this.schema?.raw);
    return this.queries.answer(text, index.list(), index.generation, encode);
  }

  /** `[id, item]` pairs a query selects, in its order: what GraphQL's list fields answer. */
  select(parameters: Iterable<[string, string]>): Array<[string, unknown]> {
    return selectEntries(this.schema?.raw, this.index().entries(), parameters);
  }

  /**
   * The versions of item `id` in `window` (all by default), oldest first, from the
   * package's data and the operation log. Only that item's lines of the log are parsed,
   * and only those of the page: a page over `historyBytes` is refused before it is built.
   */
  async history(id: string, window: { offset: number; limit?: number } = { offset: 0 }): Promise<HistoryPage> {
    this.index();
    const first = baseVersion(id, this.base());
    const log = await this.past();
    const all = [...(first ? [first] : []), ...(log?.versionsOf(id) ?? [])];
    if (all.length === 0) throw new ItemNotFoundError(`no item ${id} in dataset ${this.id}, now or before`);
    const page = all.slice(window.offset, window.limit === undefined ? undefined : window.offset + window.limit);
    // Weighed by the lines' lengths, before any is parsed.
    const size = page.reduce((sum, version) => sum + ('op' in version ? itemBytes(version.item) : version.end - version.start), 0);
    if (page.length > 1 && size > this.limits.historyBytes) {
      throw new HistoryTooLargeError(`the history of item ${id} in dataset ${this.id} holds ${all.length} versions; ${page.length} of them take ${size} bytes, more than the ${this.limits.historyBytes / 1024 / 1024} MiB one answer may: ask for fewer with limit and offset`);
    }
    const versions = page.map((version) => ('op' in version ? version : log!.version(version)));
    return { versions, total: all.length };
  }

  /** The items as they stood at `time` (milliseconds since the epoch), in collection order. */
  async at(time: number): Promise<DatasetIndex> {
    this.index();
    return stateAt(this.base(), (await this.past())?.operations() ?? [], time);
  }

  /** Throws the reason this dataset cannot be written, if there is one. */
  assertWritable(): void {
    if (this.refusal) throw this.refusal;
    this.index();
  }

  async create(value: unknown): Promise<StoredItem> {
    this.assertWritable();
    const operation = await this.submit((view) => {
      const item = asItem(value);
      let id: string;
      let stored = item;
      if (item.id !== undefined) id = checkNewItemId(item.id);
      else {
        const number = view.nextId();
        id = String(number);
        if (this.policy.inItem) stored = { id: this.policy.numeric ? number : id, ...item };
      }
      this.check(stored);
      if (view.has(id)) throw new DuplicateIdError(`dataset ${this.id} already has an item with id ${id}`);
      return { op: 'create', id, item: stored };
    });
    return stored(operation);
  }

  async replace(id: string, value: unknown, conditions?: ItemPreconditions): Promise<StoredItem> {
    this.assertWritable();
    const operation = await this.submit((view) => {
      checkItemPreconditions(conditions, view.get(id), id, this.id);
      const item = asItem(value);
      if (item.id !== undefined && checkItemId(item.id) !== id) throw new IdMismatchError(`the item's id ${JSON.stringify(item.id)} does not match ${id} in its path`);
      const existing = view.get(id);
      if (existing === undefined) throw new ItemNotFoundError(`no item ${id} in dataset ${this.id}`);
      const stored = item.id === undefined && (this.policy.inItem || (existing as Item).id !== undefined) ? { id: this.typedId(id, existing as Item), ...item } : item;
      this.check(stored);
      return { op: 'replace', id, item: stored };
    });
    return stored(operation);
  }

  async remove(id: string, conditions?: ItemPreconditions): Promise<void> {
    this.assertWritable();
    await this.submit((view) => {
      checkItemPreconditions(conditions, view.get(id), id, this.id);
      if (!view.has(id)) throw new ItemNotFoundError(`no item ${id} in dataset ${this.id}`);
      return { op: 'delete', id };
    });
  }

  /**
   * Folds in what other reactors sharing the store appended (they said so). Resolves after
   * a catch-up that began after the call: one under way may have read before the news, so
   * calls meanwhile share the one queued behind it. Never more than that one: under a
   * stream of writes elsewhere, a caller that waited for every later catch-up would wait
   * for ever. Appends catch up by themselves, so a catch-up waits for one in flight.
   */
  catchUp(): Promise<void> {
    if (!this.log || !this.writable) return Promise.resolve();
    if (this.queuedCatchUp) return this.queuedCatchUp;
    const run: Promise<void> = (this.catching ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        this.queuedCatchUp = undefined;
        this.catching = run;
        try {
          while (this.flushing) await this.flushing;
          this.appendLog ??= await this.log!.open();
          this.applyLogged(await this.appendLog.catchUp());
        } finally {
          if (this.catching === run) this.catching = undefined;
        }
      });
    this.queuedCatchUp = run;
    return run;
  }

  async close(): Promise<void> {
    await this.appendLog?.close();
    this.appendLog = undefined;
  }

  /** Holds later writes once the append in flight is done: the log is whole until `resume` or `takeHeld`. */
  async pause(): Promise<void> {
    this.paused = true;
    await this.flushing;
  }

  resume(): void {
    this.paused = false;
    this.startFlush();
  }

  /** The writes held by `pause`, for the dataset that replaces this one. */
  takeHeld(): Pending[] {
    return this.queue.splice(0);
  }

  adopt(writes: Pending[]): void {
    this.queue.push(...writes);
    this.startFlush();
  }

  private base(): readonly unknown[] {
    return ('index' in this.data && this.data.base) || [];
  }

  /** The log as it is now, where there is one: every acknowledged write (a torn last line was never acknowledged). */
  private async past(): Promise<LogView | undefined> {
    if (!this.log) return undefined;
    const { log } = this;
    this.pastLog ??= new PastLog((from) => log.readFrom(from), log.file);
    // Read again once a write was applied: the next request sees every acknowledged write.
    return this.pastLog.view(this.index().generation);
  }

  private index(): DatasetIndex {
    if (!('index' in this.data)) throw new NotACollectionError(`dataset ${this.id} is not a list of items: it can only be read whole`);
    return this.data.index;
  }

  private check(item: Item): void {
    if (!this.schema) return;
    const violations = this.schema.validate(item);
    if (violations.length > 0) throw new SchemaViolationError(`the item violates the schema of dataset ${this.id}`, violations);
  }

  private typedId(id: string, existing: Item): string | number {
    const numeric = typeof existing.id === 'number' || (existing.id === undefined && this.policy.numeric);
    return numeric && /^(0|[1-9][0-9]{0,15})$/.test(id) ? Number(id) : id;
  }

  private submit(decide: (view: Staged) => Operation): Promise<Operation> {
    return new Promise((resolve, reject) => {
      this.queue.push({ decide, resolve, reject });
      if (this.queue.length >= this.gatherFor) this.gathered?.();
      this.startFlush();
    });
  }

  private startFlush(): void {
    if (this.flushing || this.paused || this.queue.length === 0) return;
    // A write queued while the finished flush let go is picked up by the next one.
    const run = this.flush().then(() => {
      this.flushing = undefined;
      this.startFlush();
    });
    this.flushing = run;
  }

  /**
   * Waits, at most GATHER_MS, until as many writes are queued as the last batch held with
   * those that came while it was appended: the next writes of the clients it answered, sent
   * as soon as they heard. Without it, writers fall out of step for good (one write alone,
   * then the other three while it is appended, and so on), and each append carries half of
   * what it could. Commits in a database gather so (commit_delay); a lone writer never waits.
   */
  private gather(): Promise<void> {
    if (this.queue.length >= this.gatherFor) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.gathered?.(), GATHER_MS);
      this.gathered = () => {
        clearTimeout(timer);
        this.gathered = undefined;
        resolve();
      };
    });
  }

  private async flush(): Promise<void> {
    try {
      await this.catching;
      const index = this.index();
      // Every batch in one flush: a catch-up waits for the flush, and one begun between two flushes would be waited for by the second.
      while (this.queue.length > 0 && !this.paused) {
        await this.gather();
        if (this.paused) break;
        const batch = this.queue.splice(0);
        let decided: Decided | undefined;
        try {
          this.appendLog ??= await this.log!.open();
          // Decided under the log's hold, after what other reactors appended: the store decides, not a check-then-write race.
          await this.appendLog.append((elsewhere) => {
            this.applyLogged(elsewhere);
            decided = this.decide(batch, index);
            const lines = decided.accepted.map(({ line }) => line).join('');
            // Else the first line would run on from the last operation, and the log would not load again.
            return encodeText(this.unended && lines !== '' ? `\n${lines}` : lines);
          });
          if (decided!.accepted.length > 0) this.unended = false;
        } catch (error) {
          for (const { reject } of decided?.accepted ?? batch) reject(error);
          for (const { reject, error: refusal } of decided?.refused ?? []) reject(refusal);
          continue;
        }
        const { accepted, refused, counter } = decided!;
        this.counter = counter;
        // The writers of this batch, and those who wrote meanwhile: as many as came in time, so one that went quiet is not waited for again.
        this.gatherFor = batch.length + this.queue.length;
        for (const { reject, error } of refused) reject(error);
        for (const { resolve, operation, change } of accepted) {
          index.apply(operation, change);
          resolve(operation);
        }
      }
    } catch (error) {
      for (const pending of this.queue.splice(0)) pending.reject(error);
    }
  }

  /**
   * Each write of a batch decided in turn against the items and the writes ahead of it; one
   * refused fails alone. Acts on nothing: a store may ask again, with what was appended
   * elsewhere meanwhile, and the last answer is the one written.
   */
  private decide(batch: Pending[], index: DatasetIndex): Decided {
    const staged = new Map<string, unknown>();
    let counter = this.counter;
    const view: Staged = {
      get: (id) => (staged.has(id) ? staged.get(id) : index.get(id)),
      has: (id) => view.get(id) !== undefined,
      // Taken counts the writes queued ahead in this batch too.
      nextId: () => {
        const id = nextFreeId(view.has, Math.max(counter, index.size + 1));
        counter = id + 1;
        return id;
      },
    };
    const accepted: Accepted[] = [];
    const refused: Decided['refused'] = [];
    // Counted once (the first write serializes every item), then kept by each write: never the collection serialized per write.
    let bytes = index.bytes;
    for (const pending of batch) {
      // A write refused takes no number: the next write gets it, and ids leave no gap a client would wonder at.
      const counterBefore = counter;
      try {
        const operation = pending.decide(view);
        // Formatted here, one by one: an item that cannot be written fails alone, never its neighbours.
        const json = operation.op === 'delete' ? undefined : JSON.stringify(operation.item);
        const change = bytesChange(operation, view.get(operation.id), json);
        // Refused before it is logged: an acknowledged write must leave a collection every answer can serialize, and a saved package that loads.
        if (change > 0 && bytes + change > this.limits.datasetBytes) {
          throw new DatasetFullError(`dataset ${this.id} holds ${bytes} bytes of JSON; this write would take it to ${bytes + change}, past the ${this.limits.datasetBytes / 1024 / 1024} MiB a dataset may hold (delete or shrink items to make room)`);
        }
        const line = formatOperation(operation, this.log!.clock.now(), json);
        bytes += change;
        staged.set(operation.id, operation.op === 'delete' ? undefined : operation.item);
        accepted.push({ resolve: pending.resolve, reject: pending.reject, operation, line, change });
      } catch (error) {
        counter = counterBefore;
        refused.push({ reject: pending.reject, error });
      }
    }
    return { accepted, refused, counter };
  }

  /** Operations other reactors sharing the store appended, applied in their order. */
  private applyLogged(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    // Who appended ended the last line first.
    this.unended = false;
    const index = this.index();
    for (const operation of appendedOperations(bytes)) index.apply(operation);
  }
}

interface Decided {
  accepted: Accepted[];
  refused: Array<{ reject(error: unknown): void; error: unknown }>;
  /** The next id to try for an item posted without one, once these writes are made. */
  counter: number;
}

interface Accepted {
  resolve(operation: Operation): void;
  reject(error: unknown): void;
  operation: Operation;
  line: string;
  /** What it adds to the collection's bytes. */
  change: number;
}

function stored(operation: Operation): StoredItem {
  return { id: operation.id, item: operation.op === 'delete' ? undefined : operation.item };
}

const encoder = new TextEncoder();
function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}
function encode(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}
