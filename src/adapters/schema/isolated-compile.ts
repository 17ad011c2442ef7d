import type { Ajv, AnySchema } from 'ajv';

/**
 * ajv's compile, leaving the engine as it found it. ajv keeps each schema it compiles by
 * its `$id` and its subschemas' ones: the same `$id` compiled again (two datasets sharing
 * one schema file, or a package served twice) was refused as "already exists", and a
 * schema of one package could refer to another package's by its `$id`.
 */
export function compileIsolated(engine: Ajv, schema: AnySchema): ReturnType<Ajv['compile']> {
  const schemas = { ...engine.schemas };
  const refs = { ...engine.refs };
  try {
    return engine.compile(schema);
  } finally {
    // ajv forgets a schema object by its `$id`: one that copies a meta-schema's `$id` (refused, as it exists) took the engine's
    // meta-schema with it, and every later schema naming that `$schema` was refused as "no schema with key or ref".
    if (typeof schema === 'object') engine.removeSchema(schema);
    for (const key of Object.keys(engine.schemas)) if (!Object.hasOwn(schemas, key)) engine.removeSchema(key);
    for (const key of Object.keys(engine.refs)) if (!Object.hasOwn(refs, key)) engine.removeSchema(key);
    Object.assign(engine.schemas, schemas);
    Object.assign(engine.refs, refs);
  }
}
