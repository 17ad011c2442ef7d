import { InvalidItemError } from '../errors.js';
import { isRecord } from '../package/documents.js';
import { MAX_JSON_DEPTH, unstorableJson } from './json-depth.js';

export type Item = Record<string, unknown>;

const MAX_ID_LENGTH = 256;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** SPEC.md: an item's id is its `id` field when present, otherwise its 1-based index as a string. */
export function itemIdOf(item: unknown, index: number): string {
  const id = isRecord(item) ? item.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : String(index + 1);
}

/**
 * An id as it may appear in `/api/v1/data/<dataset>/<id>` and in the operation log:
 * a string or a finite number, not empty, no `/`, `\`, `..`, or control characters.
 */
export function checkItemId(raw: unknown): string {
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) throw new InvalidItemError('"id" must be a finite number or a string');
    return String(raw);
  }
  if (typeof raw !== 'string') throw new InvalidItemError('"id" must be a string or a number');
  const reason = idProblem(raw);
  if (reason) throw new InvalidItemError(`"id" ${JSON.stringify(raw.slice(0, 40))} ${reason}`);
  return raw;
}

/**
 * The id of a new item: also not ".", a URL segment that means the collection itself, so
 * `/api/v1/data/<dataset>/.` could never name the item. (Only new ones: an overlay
 * written before this rule still loads, and its item can be replaced or deleted.)
 */
export function checkNewItemId(raw: unknown): string {
  const id = checkItemId(raw);
  if (id === '.') throw new InvalidItemError('"id" "." is a name no URL can give the item');
  return id;
}

function idProblem(id: string): string | undefined {
  if (id === '') return 'is empty';
  if (id.length > MAX_ID_LENGTH) return `is longer than ${MAX_ID_LENGTH} characters`;
  if (id.includes('/') || id.includes('\\')) return 'contains a slash';
  if (id.includes('..')) return 'contains ".."';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) return 'contains a control character';
  // A lone surrogate has no UTF-8 form: no URL, log line or response could name the item again.
  if (LONE_SURROGATE.test(id)) return 'is not well-formed Unicode (a lone surrogate)';
  return undefined;
}

/** Request bodies that should be items: a JSON object, never an array or a scalar. */
export function asItem(value: unknown): Item {
  if (!isRecord(value)) throw new InvalidItemError(`an item must be a JSON object, not ${describe(value)}`);
  const problem = unstorableJson(value, MAX_JSON_DEPTH);
  if (problem === 'too deep') throw new InvalidItemError(`an item may nest at most ${MAX_JSON_DEPTH} levels of arrays and objects`);
  if (problem === 'infinite number') throw new InvalidItemError('an item holds a number beyond what JSON numbers carry (like 1e400, past ±1.8e308): it would be stored, and read back, as null');
  return value;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

/** How ids given by the reactor (a POST without `id`) are written into items. */
export interface IdPolicy {
  /** Whether items carry their id in an `id` field. */
  inItem: boolean;
  /** Whether that field holds a number rather than a string. */
  numeric: boolean;
}

/**
 * Items carry `id` when the schema declares it, or, without a schema, when the base
 * items do (or there are none yet). Its type follows the schema, else the base items.
 */
export function idPolicyOf(schema: unknown, base: readonly unknown[]): IdPolicy {
  const declared = isRecord(schema) && isRecord(schema.properties) ? schema.properties.id : undefined;
  if (isRecord(declared)) {
    const types = ([] as unknown[]).concat(declared.type ?? []);
    return { inItem: true, numeric: types.length > 0 && types.every((type) => type === 'integer' || type === 'number') };
  }
  const withId = base.find((item) => isRecord(item) && item.id !== undefined) as Item | undefined;
  if (schema !== undefined && isRecord(schema) && schema.additionalProperties === false) return { inItem: false, numeric: false };
  return { inItem: withId !== undefined || base.length === 0, numeric: withId ? typeof withId.id === 'number' : true };
}

/**
 * The items as the dataset's file should hold them, each keeping the id it is served
 * under. An item without an `id` field is named by its position, which deletes and
 * inserts shift: written back as they are, `/notes/4` would become `/notes/3`, or take
 * the id of an item that has one. Such an item gets its id written in, a number where
 * the dataset's ids are numbers, unless the schema forbids the field.
 */
export function itemsKeepingIds(entries: ReadonlyArray<readonly [string, unknown]>, policy: IdPolicy, schema: unknown): unknown[] {
  const forbidden = isRecord(schema) && schema.additionalProperties === false && !(isRecord(schema.properties) && 'id' in schema.properties);
  return entries.map(([id, item], position) => {
    if (forbidden || !isRecord(item) || itemIdOf(item, position) === id) return item;
    return { id: policy.numeric && /^(0|[1-9]\d{0,14})$/.test(id) ? Number(id) : id, ...item };
  });
}
