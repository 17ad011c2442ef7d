import { isRecord } from '../package/documents.js';

/** Keywords whose values are data, not schemas: an `$id` in a `const` names nothing, a `maximum` in an `enum` bounds nothing. */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'default', 'examples']);

/**
 * Whether a dataset's schema describes the whole collection (`{"type": "array", "items":
 * {...}}`, as other implementations write) rather than one item.
 */
export function isCollectionSchema(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  const types = ([] as unknown[]).concat(schema.type ?? []);
  return types.includes('array') && !types.includes('object');
}

/** The schema one item must meet: a collection schema's `items`, or the schema itself. Undefined for a collection schema that says nothing of its items. */
export function itemSchemaOf(schema: unknown): unknown {
  if (!isCollectionSchema(schema)) return schema;
  const root = schema as Record<string, unknown>;
  const items = root.items;
  if (typeof items === 'boolean') return items;
  if (!isRecord(items)) return undefined;
  // `$ref`s inside items point at the root's definitions: they come along.
  const definitions = Object.fromEntries(['$defs', 'definitions', '$schema'].filter((key) => root[key] !== undefined && items[key] === undefined).map((key) => [key, root[key]]));
  return { ...definitions, ...items };
}
