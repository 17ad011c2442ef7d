import type { Ajv, AnySchema } from 'ajv';

/**
 * ajv's compile, leaving the engine as it found it. ajv keeps each schema it compiles by
 * its `$id` and its subschemas' ones: the same `$id` compiled again (two datasets sharing
 * one schema file, or a package served twice) was refused as "already exists", and a
 * schema of one package could refer to another package's by its `$id`.
 */
export function compileIsolated(engine: Ajv, schema: AnySchema): ReturnType<Ajv['compile']> {
  const known = new Set([...Object.keys(engine.schemas), ...Object.keys(engine.refs)]);
  try {
    return engine.compile(schema);
  } finally {
    if (typeof schema === 'object') engine.removeSchema(schema);
    for (const key of [...Object.keys(engine.schemas), ...Object.keys(engine.refs)]) if (!known.has(key)) engine.removeSchema(key);
  }
}
