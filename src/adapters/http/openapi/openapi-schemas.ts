import { isRecord } from '../../../domain/package/documents.js';
import type { Dataset } from '../../../application/data/dataset.js';
import { draft04As2020 } from '../../../domain/data/draft04-schema.js';

type JsonObject = Record<string, unknown>;

/** What OpenAPI 3.1 (§4.8.7.1) lets a component's name hold; anything else becomes `_`. */
const NOT_IN_A_NAME = /[^A-Za-z0-9._-]/g;

/**
 * Puts a dataset's item schema into the document's `components.schemas`, its local
 * definitions as components of their own, and answers the reference to it. Each name is
 * new to the document: datasets `tree` and `Tree` would otherwise share one,
 * and one dataset's description would replace the other's.
 */
export function addItemSchema(dataset: Dataset, schemas: JsonObject): { $ref: string } {
  const name = freeName(itemName(dataset.id), schemas);
  const written = dataset.schema?.raw;
  const raw = isRecord(written) && String(written.$schema ?? '').includes('draft-04') ? draft04As2020(written) : written;
  if (!isRecord(raw)) {
    schemas[name] = { type: 'object', description: `An item of ${dataset.id} (its package gives no schema).` };
    return refTo(name);
  }
  const { $schema: _schema, $id: _id, definitions, $defs, ...rest } = raw;
  schemas[name] = rest;
  // Pointers below `#/definitions/` and `#/$defs/` keep their own spaces: a key may be in both.
  const lifted = new Map<string, string>();
  for (const [space, entries] of [['definitions', definitions], ['$defs', $defs]] as const) {
    if (!isRecord(entries)) continue;
    for (const [key, value] of Object.entries(entries)) {
      const component = freeName(`${name}_${key.replace(NOT_IN_A_NAME, '_')}`, schemas);
      schemas[component] = value;
      lifted.set(`${space}/${key}`, component);
    }
  }
  const rewrite = (ref: string) => localRef(ref, name, lifted);
  schemas[name] = rewriteRefs(rest, rewrite);
  for (const component of lifted.values()) schemas[component] = rewriteRefs(schemas[component], rewrite);
  return refTo(name);
}

const refTo = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A `$ref` of the dataset's schema, which points into that schema's own document, made to
 * point at the same place in the OpenAPI document: `#` (the item itself, as a tree's children
 * are) at the item's component, a definition at its component, any other pointer below the
 * item's. A reference to another document is left as written.
 */
function localRef(ref: string, name: string, lifted: ReadonlyMap<string, string>): string {
  if (ref === '#' || ref === '#/') return refTo(name).$ref;
  if (!ref.startsWith('#/')) return ref;
  const [space, key, ...rest] = ref.slice(2).split('/');
  const component = lifted.get(`${space}/${pointerToken(key ?? '')}`);
  if (component) return [refTo(component).$ref, ...rest].join('/');
  return `${refTo(name).$ref}${ref.slice(1)}`;
}

/** A JSON pointer's token as the key it names: a `$ref` is a URI (percent-encoded), its fragment a pointer (`~1` is `/`, `~0` is `~`). */
function pointerToken(token: string): string {
  let decoded = token;
  try {
    decoded = decodeURIComponent(token);
  } catch {
    // Not percent-encoded after all: the token as written.
  }
  return decoded.replaceAll('~1', '/').replaceAll('~0', '~');
}

function rewriteRefs(value: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((entry) => rewriteRefs(entry, rewrite));
  if (!isRecord(value)) return value;
  const out: JsonObject = {};
  for (const [key, entry] of Object.entries(value)) out[key] = key === '$ref' && typeof entry === 'string' ? rewrite(entry) : rewriteRefs(entry, rewrite);
  return out;
}

function itemName(id: string): string {
  const name = id.replace(NOT_IN_A_NAME, '_');
  return /^[A-Za-z]/.test(name) ? `${name[0]!.toUpperCase()}${name.slice(1)}Item` : `Dataset_${name}Item`;
}

/** `name`, or `name_2`, `name_3`...: the first the document has not given yet. */
function freeName(name: string, schemas: JsonObject): string {
  let candidate = name;
  for (let n = 2; Object.hasOwn(schemas, candidate); n++) candidate = `${name}_${n}`;
  return candidate;
}
