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
 * The queries of one collection, each answered once per version of its items. A write
 * (a new generation) drops every kept answer.
 */
export class CollectionQueries {
  private generation = -1;
  /** By canonical query, so that parameter order does not matter. */
  private readonly answers = new Map<string, QueryAnswer>();
  /** By the query's text as sent: a repeated request is answered without reading it again. */
  private readonly asSent = new Map<string, QueryAnswer>();

  constructor(private readonly schema: unknown) {}

  answer(text: string, items: readonly unknown[], generation: number, encode: (value: unknown) => Uint8Array): QueryAnswer {
    if (generation !== this.generation) {
      this.answers.clear();
      this.asSent.clear();
      this.generation = generation;
    }
    const sent = this.asSent.get(text);
    if (sent) return sent;
    const query = parseCollectionQuery(new URLSearchParams(text), fieldsOf(this.schema, items));
    const key = queryKey(query);
    const kept = this.answers.get(key);
    if (kept) return this.remember(text, kept);
    const selected = selectItems(items, query);
    const { window } = query;
    const page = window ? selected.slice(window.offset, window.limit === undefined ? undefined : window.offset + window.limit) : selected;
    const answer: QueryAnswer = { body: encode(page), total: selected.length, ...(window ? { window } : {}) };
    if (this.answers.size >= KEPT) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, answer);
    return this.remember(text, answer);
  }

  private remember(text: string, answer: QueryAnswer): QueryAnswer {
    if (this.asSent.size >= KEPT) this.asSent.delete(this.asSent.keys().next().value!);
    this.asSent.set(text, answer);
    return answer;
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
