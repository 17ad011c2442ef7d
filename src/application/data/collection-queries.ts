import { parseCollectionQuery, queryKey, selectItems, valueAt, type FieldType, type QueryFields } from '../../domain/data/collection-query.js';
import { isRecord } from '../../domain/package/documents.js';

/** A query's answer: the page of items as JSON, how many matched in all, and the window it shows. */
export interface QueryAnswer {
  body: Uint8Array;
  /** Items that match, before paging: `X-Total-Count`. */
  total: number;
  window?: { offset: number; limit: number | undefined; page?: number; perPage?: number };
}

/** Answers kept per generation of the data: a repeated query costs a lookup until the next write. */
const KEPT = 64;
/**
 * Bytes of answers kept per collection. Counted, not only answers: 64 spellings of a
 * query that selects a whole 20 MB dataset held 1.3 GB. An answer over a quarter of
 * this is answered each time, as a collection read whole already is from its own copy.
 */
const KEPT_BYTES = 8 * 1024 * 1024;

/**
 * The queries of one collection, each answered once per version of its items. A write
 * (a new generation) drops every kept answer.
 */
export class CollectionQueries {
  private generation = -1;
  /** By canonical query, so that parameter order does not matter; oldest first. */
  private readonly answers = new Map<string, QueryAnswer>();
  private keptBytes = 0;
  /** The canonical query of a query's text as sent: a repeated request is answered without reading it again. */
  private readonly asSent = new Map<string, string>();

  constructor(private readonly schema: unknown) {}

  answer(text: string, items: readonly unknown[], generation: number, encode: (value: unknown) => Uint8Array): QueryAnswer {
    if (generation !== this.generation) {
      this.answers.clear();
      this.asSent.clear();
      this.keptBytes = 0;
      this.generation = generation;
    }
    const sentKey = this.asSent.get(text);
    const sent = sentKey === undefined ? undefined : this.answers.get(sentKey);
    if (sent) return sent;
    const query = parseCollectionQuery(new URLSearchParams(text), fieldsOf(this.schema, items));
    const key = queryKey(query);
    this.remember(text, key);
    const kept = this.answers.get(key);
    if (kept) return kept;
    const selected = selectItems(items, query);
    const { window } = query;
    const page = window ? selected.slice(window.offset, window.limit === undefined ? undefined : window.offset + window.limit) : selected;
    const answer: QueryAnswer = { body: encode(page), total: selected.length, ...(window ? { window } : {}) };
    this.keep(key, answer);
    return answer;
  }

  private keep(key: string, answer: QueryAnswer): void {
    const size = answer.body.byteLength;
    if (size > KEPT_BYTES / 4) return;
    for (const [oldest, kept] of this.answers) {
      if (this.answers.size < KEPT && this.keptBytes + size <= KEPT_BYTES) break;
      this.answers.delete(oldest);
      this.keptBytes -= kept.body.byteLength;
    }
    this.answers.set(key, answer);
    this.keptBytes += size;
  }

  private remember(text: string, key: string): void {
    if (this.asSent.size >= KEPT) this.asSent.delete(this.asSent.keys().next().value!);
    this.asSent.set(text, key);
  }
}

/** `[id, item]` rows a query selects and its window shows: for GraphQL, which answers ids beside items. */
export function selectEntries(schema: unknown, entries: ReadonlyArray<[string, unknown]>, parameters: Iterable<[string, string]>): Array<[string, unknown]> {
  const query = parseCollectionQuery(parameters, fieldsOf(schema, entries.map(([, item]) => item)));
  const selected = selectItems(entries, query, ([, item]) => item);
  const { window } = query;
  return window ? selected.slice(window.offset, window.limit === undefined ? undefined : window.offset + window.limit) : selected;
}

/** The fields a query may name: those the item schema declares (with their types), and those some item has. */
function fieldsOf(schema: unknown, items: readonly unknown[]): QueryFields {
  return {
    has: (path) => declared(schema, path) !== undefined || items.some((item) => valueAt(item, path) !== undefined),
    typeOf: (path) => typeOf(declared(schema, path)),
  };
}

function declared(schema: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let node = schema;
  for (const part of path) {
    // Own properties only: `properties.__proto__` would otherwise be Object.prototype, a "declared" field.
    if (!isRecord(node) || !isRecord(node.properties) || !Object.hasOwn(node.properties, part) || !isRecord(node.properties[part])) return undefined;
    node = node.properties[part];
  }
  return node as Record<string, unknown>;
}

function typeOf(node: Record<string, unknown> | undefined): FieldType | undefined {
  if (!node) return undefined;
  const types = ([] as unknown[]).concat(node.type ?? []).filter((type) => type !== 'null');
  if (types.length !== 1) return undefined;
  const [type] = types;
  return type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' ? type : 'other';
}
