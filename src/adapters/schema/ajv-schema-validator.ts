import { Ajv, type AnySchema, type ErrorObject } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ConfigValidationError } from '../../domain/errors.js';
import type { CompiledSchema, SchemaValidator, SchemaViolation } from '../../application/ports/schema-validator.js';

// ajv-formats is CommonJS; under nodenext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** JSON Schema validation with ajv: draft-07 by default, 2019-09 and 2020-12 by `$schema`. */
export class AjvSchemaValidator implements SchemaValidator {
  private readonly engines = new Map<string, Ajv>();

  compile(schema: unknown, file: string): CompiledSchema {
    if (typeof schema !== 'object' && typeof schema !== 'boolean') throw new ConfigValidationError(file, ['a JSON schema must be an object or a boolean']);
    try {
      const validate = this.engineFor(schema).compile(schema as AnySchema);
      return (data) => (validate(data) ? [] : (validate.errors ?? []).map(violation));
    } catch (error) {
      throw new ConfigValidationError(file, [`invalid JSON schema: ${(error as Error).message}`]);
    }
  }

  private engineFor(schema: unknown): Ajv {
    const dialect = typeof schema === 'object' && schema !== null ? String((schema as { $schema?: unknown }).$schema ?? '') : '';
    const kind = dialect.includes('2020-12') ? '2020' : dialect.includes('2019-09') ? '2019' : '07';
    let engine = this.engines.get(kind);
    if (!engine) {
      const options = { allErrors: true, strict: false };
      engine = kind === '2020' ? new Ajv2020(options) : kind === '2019' ? new Ajv2019(options) : new Ajv(options);
      addFormats(engine);
      this.engines.set(kind, engine);
    }
    return engine;
  }
}

function violation(error: ErrorObject): SchemaViolation {
  const detail = error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})` : '';
  return { path: error.instancePath, message: `${error.message ?? 'is invalid'}${detail}` };
}
