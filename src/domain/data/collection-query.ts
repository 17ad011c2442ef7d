import { InvalidQueryError, UnknownFieldError } from '../errors.js';
import { isRecord } from '../package/documents.js';
import { comparePaths } from '../package/package-paths.js';
import { MAX_JSON_DEPTH } from './json-depth.js';

/** json-server's operator suffixes; `like` is a case-insensitive substring here, never a client's regular expression. */
const OPERATORS = ['gte', 'lte', 'gt', 'lt', 'ne', 'like'] as const;
type Operator = 'eq' | (typeof OPERATORS)[number];

/** Parameters that shape the answer rather than name a field. */
const RESERVED = new Set(['q', 'sort', 'limit', 'offset', 'page', 'per_page', 'at']);
const DEFAULT_PER_PAGE = 10;
/**
 * Filter values and sort keys one query may hold, together. Each is weighed against every
 * item (a sort key, against every pair compared): 20,000 `_like` values held the event loop
 * for 4 seconds on a thousand items. Real queries name a handful.
 */
export const MAX_QUERY_TERMS = 100;

export interface Filter {
  path: string[];
  op: Operator;
  /** Several values of one field and operator: any of them matches. */
  values: Array<string | number | boolean | null>;
}

export interface CollectionQuery {
  filters: Filter[];
  /** Full text: items with a string field that contains it, case-insensitively. */
  q?: string;
  sort: Array<{ path: string[]; descending: boolean }>;
  /** `limit`/`offset`, or `page`/`per_page` (then `page` is set, 1-based). */
  window?: { offset: number; limit: number | undefined; page?: number; perPage?: number };
}

/** A field's JSON-schema type when the dataset's schema declares one: query values are read as that type. */
export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'other';

/** What a query may name: the fields of the schema, or of the items when there is none. */
export interface QueryFields {
  has(path: readonly string[]): boolean;
  typeOf(path: readonly string[]): FieldType | undefined;
}

/**
 * Reads a collection query from URL parameters: `<field>=<value>` (repeatable, dotted paths),
 * `<field>_gte|_lte|_gt|_lt|_ne|_like=<value>`, `q`, `sort=a,-b`, `limit`/`offset` or
 * `page`/`per_page`. Whatever it cannot read is refused, never ignored.
 */
export function parseCollectionQuery(parameters: Iterable<[string, string]>, fields: QueryFields): CollectionQuery {
  const byKey = new Map<string, Filter>();
  const query: CollectionQuery = { filters: [], sort: [] };
  const numbers: Record<string, number> = {};
  const given = new Set<string>();
  let terms = 0;
  for (const [name, raw] of parameters) {
    if (RESERVED.has(name)) {
      // Which of two would be meant is anyone's guess: refused, not one of them silently dropped.
      if (given.has(name)) throw new InvalidQueryError(`${name} is given more than once`);
      given.add(name);
      if (name === 'q') query.q = raw;
      else if (name === 'sort') {
        query.sort = parseSort(raw, fields);
        terms = counted(terms, query.sort.length);
      } else if (name !== 'at') numbers[name] = wholeNumber(raw, name, name === 'page' || name === 'per_page' ? 1 : 0);
      continue;
    }
    // Counted as they come, before a field is looked up: a million filter values are refused at the 101st.
    terms = counted(terms, 1);
    const [field, op] = splitOperator(name);
    const path = pathOf(field, name);
    if (!fields.has(path)) throw new UnknownFieldError(`${field} is not a field of this dataset's items`);
    const key = `${op} ${field}`;
    const filter = byKey.get(key) ?? { path, op, values: [] };
    filter.values.push(op === 'like' ? raw : typed(raw, fields.typeOf(path), name));
    if (!byKey.has(key)) {
      byKey.set(key, filter);
      query.filters.push(filter);
    }
  }
  const paged = numbers.page !== undefined || numbers.per_page !== undefined;
  if (paged && (numbers.limit !== undefined || numbers.offset !== undefined)) throw new InvalidQueryError('use limit and offset, or page and per_page, not both');
  if (paged) {
    const page = numbers.page ?? 1;
    const perPage = numbers.per_page ?? DEFAULT_PER_PAGE;
    query.window = { offset: (page - 1) * perPage, limit: perPage, page, perPage };
  } else if (numbers.limit !== undefined || numbers.offset !== undefined) query.window = { offset: numbers.offset ?? 0, limit: numbers.limit };
  return query;
}

/**
 * The rows a query selects, in its order, before paging: filters, then `q`, then a stable
 * sort. `itemOf` reads the item of a row (rows may carry their ids beside their items).
 */
export function selectItems<Row>(rows: readonly Row[], query: CollectionQuery, itemOf: (row: Row) => unknown = (row) => row): Row[] {
  const needle = query.q?.toLowerCase();
  const selected = rows.filter((row) => query.filters.every((filter) => matches(itemOf(row), filter)) && (needle === undefined || containsText(itemOf(row), needle)));
  if (query.sort.length > 0)
    // Array.prototype.sort is stable: items equal on every key keep their collection order.
    selected.sort((a, b) => {
      for (const key of query.sort) {
        const left = valueAt(itemOf(a), key.path);
        const right = valueAt(itemOf(b), key.path);
        // Missing values stay last either way: only the order of those present turns.
        if ((left === undefined) !== (right === undefined)) return left === undefined ? 1 : -1;
        const order = compareValues(left, right);
        if (order !== 0) return key.descending ? -order : order;
      }
      return 0;
    });
  return selected;
}

/** A canonical form of a query, the key of its cached answer: parameter order does not matter, repetition order does. */
export function queryKey(query: CollectionQuery): string {
  const filters = [...query.filters].map((filter) => [filter.path.join('.'), filter.op, filter.values]).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return JSON.stringify([filters, query.q ?? null, query.sort, query.window ?? null]);
}

/** The filter values and sort keys of a query so far, with `more`; refused past MAX_QUERY_TERMS. */
function counted(terms: number, more: number): number {
  if (terms + more > MAX_QUERY_TERMS) throw new InvalidQueryError(`a query takes at most ${MAX_QUERY_TERMS} filter values and sort keys together`);
  return terms + more;
}

/**
 * Whether `<field>=<value>` filters on that top-level field: not when the name is a reserved
 * parameter, ends in an operator's suffix or holds a dot, which the parser reads otherwise.
 */
export function isFilterableField(field: string): boolean {
  return field !== '' && !RESERVED.has(field) && !field.includes('.') && splitOperator(field)[1] === 'eq';
}

function splitOperator(name: string): [string, Operator] {
  const underscore = name.lastIndexOf('_');
  if (underscore > 0) {
    const suffix = name.slice(underscore + 1);
    if ((OPERATORS as readonly string[]).includes(suffix)) return [name.slice(0, underscore), suffix as Operator];
  }
  return [name, 'eq'];
}

function pathOf(field: string, parameter: string): string[] {
  const path = field.split('.');
  if (path.some((part) => part === '')) throw new InvalidQueryError(`${parameter} is not a field path (dotted names like author.name)`);
  return path;
}

function parseSort(raw: string, fields: QueryFields): CollectionQuery['sort'] {
  const parts = raw.split(',');
  // Checked before the fields are: a sort of a million keys is refused without looking at each.
  if (parts.length > MAX_QUERY_TERMS) throw new InvalidQueryError(`sort takes at most ${MAX_QUERY_TERMS} keys (got ${parts.length})`);
  const named = new Set<string>();
  return parts.map((part) => {
    const descending = part.startsWith('-');
    const field = descending ? part.slice(1) : part;
    const path = pathOf(field, `sort=${raw.length > 200 ? `${raw.slice(0, 200)}…` : raw}`);
    if (!fields.has(path)) throw new UnknownFieldError(`sort names ${field}, which is not a field of this dataset's items`);
    // A second key on one field never decides anything the first left equal.
    if (named.has(field)) throw new InvalidQueryError(`sort names ${field} more than once`);
    named.add(field);
    return { path, descending };
  });
}

/** A number as JSON writes one, else NaN: Number() also reads "0x5", " 5 " and "" (as 0). */
function jsonNumber(raw: string): number {
  return JSON_NUMBER.test(raw) ? Number(raw) : NaN;
}
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A query parameter's decimal digits as a number, refused (BAD_QUERY) when it is anything else or below `minimum`. */
export function wholeNumber(raw: string, name: string, minimum: number): number {
  const number = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(number) || number < minimum) throw new InvalidQueryError(`${name} must be a whole number, ${minimum} or more (got ${JSON.stringify(raw)})`);
  return number;
}

/** A value read as the schema's type says; without one, kept as text and compared loosely (see matches). */
function typed(raw: string, type: FieldType | undefined, name: string): string | number | boolean | null {
  switch (type) {
    case 'boolean':
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw new InvalidQueryError(`${name} takes true or false (got ${JSON.stringify(raw)})`);
    case 'number':
    case 'integer': {
      const number = jsonNumber(raw);
      if (!Number.isFinite(number)) throw new InvalidQueryError(`${name} takes a number (got ${JSON.stringify(raw)})`);
      return number;
    }
    case 'null':
      if (raw === 'null') return null;
      throw new InvalidQueryError(`${name} takes null (got ${JSON.stringify(raw)})`);
    default:
      return raw;
  }
}

function matches(item: unknown, filter: Filter): boolean {
  const value = valueAt(item, filter.path);
  switch (filter.op) {
    case 'eq':
      return filter.values.some((wanted) => same(value, wanted));
    case 'ne':
      return filter.values.every((unwanted) => !same(value, unwanted));
    case 'like':
      return typeof value === 'string' && filter.values.some((part) => value.toLowerCase().includes(String(part).toLowerCase()));
    default:
      return filter.values.every((bound) => ordered(value, bound, filter.op));
  }
}

/** Equality as a URL can say it: a text value matches a number, boolean or null that prints the same. */
function same(value: unknown, wanted: string | number | boolean | null): boolean {
  if (value === wanted) return true;
  if (typeof wanted !== 'string') return false;
  if (typeof value === 'number') return String(value) === wanted;
  if (typeof value === 'boolean' || value === null) return String(value) === wanted;
  return false;
}

function ordered(value: unknown, bound: string | number | boolean | null, op: Operator): boolean {
  const left = value;
  let right: unknown = bound;
  if (typeof value === 'number' && typeof bound === 'string') right = jsonNumber(bound);
  if (typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string')) return false;
  if (typeof left === 'number' && Number.isNaN(right)) return false;
  const order = compareValues(left, right);
  return op === 'gte' ? order >= 0 : op === 'lte' ? order <= 0 : op === 'gt' ? order > 0 : order < 0;
}

const RANK: Record<string, number> = { number: 0, string: 1, boolean: 2, object: 3, undefined: 4 };

/**
 * A total order: numbers, then strings, then booleans, then the rest; missing values last.
 * Strings go by code point, as the README says: by UTF-16 code unit, an emoji (a surrogate
 * pair) would sort below U+E000 to U+FFFF (full-width forms, private use).
 */
function compareValues(a: unknown, b: unknown): number {
  const ta = a === null ? 'object' : typeof a;
  const tb = b === null ? 'object' : typeof b;
  if (ta !== tb) return (RANK[ta] ?? 3) - (RANK[tb] ?? 3);
  if (ta === 'string') return Math.sign(comparePaths(a as string, b as string));
  if (ta === 'number' || ta === 'boolean') return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  return 0;
}

export function valueAt(item: unknown, path: readonly string[]): unknown {
  let value = item;
  for (const part of path) {
    if (!isRecord(value) || !Object.hasOwn(value, part)) return undefined;
    value = value[part];
  }
  return value;
}

/** Any depth an item may have: stored items nest at most MAX_JSON_DEPTH levels, which bounds the recursion. */
function containsText(value: unknown, needle: string, depth = 0): boolean {
  if (typeof value === 'string') return value.toLowerCase().includes(needle);
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) return value.some((entry) => containsText(entry, needle, depth + 1));
  if (isRecord(value)) return Object.values(value).some((entry) => containsText(entry, needle, depth + 1));
  return false;
}
