import { DATA_KEYWORDS } from './dataset-schema.js';

type JsonObject = Record<string, unknown>;

/**
 * A draft-04 schema as OpenAPI 3.1 (JSON Schema 2020-12) reads it: draft-04 marks a bound
 * exclusive with a boolean beside it (`maximum: 10, exclusiveMaximum: true`), which 2020-12
 * requires to be the bound itself (`exclusiveMaximum: 10`); and names a schema by `id`,
 * which 2020-12 ignores. Other keywords mean the same in both.
 */
export function draft04As2020(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(draft04As2020);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  // An item of an `enum` may hold a `maximum` of its own: data, left as written.
  for (const [key, entry] of Object.entries(value as JsonObject)) out[key] = DATA_KEYWORDS.has(key) ? entry : draft04As2020(entry);
  for (const [bound, exclusive] of [['maximum', 'exclusiveMaximum'], ['minimum', 'exclusiveMinimum']] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else delete out[exclusive];
  }
  if (typeof out.id === 'string' && out.$id === undefined) delete out.id;
  return out;
}
