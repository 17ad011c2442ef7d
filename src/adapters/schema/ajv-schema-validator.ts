import type { Ajv, AnySchema, AnySchemaObject, ErrorObject } from 'ajv';
import { ConfigValidationError, UnusableSchemaError } from '../../domain/errors.js';
import type { CompiledSchema, SchemaValidator, SchemaViolation } from '../../application/ports/schema-validator.js';
import { NonLinearPatternError } from './non-linear-pattern-error.js';
import { patternPlaces } from './pattern-places.js';
import { lineariseFormats } from './linear-formats.js';
import { lineariseUniqueItems } from './unique-items.js';
import { compileIsolated } from './isolated-compile.js';
import { evaluationBound, MAX_EVALUATIONS_PER_VALUE, type EvaluationBound, type NameMatcher } from './evaluation-bound.js';
import type { PatternTest } from './linear-regexp.js';

/**
 * ajv and its formats are imported on the first schema: they are a fifth of the code a
 * reactor start would otherwise compile, and most packages declare no schema.
 */
async function loadAjv() {
  const [ajv, ajv04, draft06, ajv2019, ajv2020, formats, formatList, { linearRegExp }] = await Promise.all([
    import('ajv'),
    import('ajv-draft-04'),
    import('ajv/dist/refs/json-schema-draft-06.json', { with: { type: 'json' } }),
    import('ajv/dist/2019.js'),
    import('ajv/dist/2020.js'),
    import('ajv-formats'),
    import('ajv-formats/dist/formats.js'),
    import('./linear-regexp.js'),
  ]);
  return {
    linearRegExp,
    url: exportsOf<typeof formatList>(formatList).fullFormats.url as RegExp,
    Ajv: exportsOf<typeof ajv>(ajv).Ajv,
    Ajv04: exportsOf<{ default: typeof ajv.Ajv }>(ajv04).default,
    draft06: exportsOf<AnySchemaObject>(draft06),
    Ajv2019: exportsOf<typeof ajv2019>(ajv2019).Ajv2019,
    Ajv2020: exportsOf<typeof ajv2020>(ajv2020).Ajv2020,
    addFormats: exportsOf<(ajv: Ajv) => Ajv>(formats),
  };
}

/**
 * A CommonJS module's `module.exports`, from the namespace a dynamic import gives: Node
 * puts it at `default` (and guesses named exports), a bundled chunk only at `default`.
 */
function exportsOf<T>(namespace: unknown): T {
  return ((namespace as { default?: unknown }).default ?? namespace) as T;
}

/**
 * Schemas one ajv engine compiles before it is replaced by a fresh one. ajv keeps a piece
 * of every schema it compiled (the values its generated code refers to) for as long as the
 * engine lives, whatever `removeSchema` says: a reactor under `--watch` compiles a
 * package's schemas again at each reload, and grew by kilobytes each time, for good. An
 * engine's validators keep it alive only as long as they are in use themselves.
 */
export const COMPILES_PER_ENGINE = 64;

/**
 * JSON Schema validation with ajv: draft-07 by default, draft-04 (ajv-draft-04: what packages
 * of the Ruby reference implementation's json-schema gem declare), draft-06, 2019-09 and
 * 2020-12 by `$schema`.
 */
export class AjvSchemaValidator implements SchemaValidator {
  private readonly engines = new Map<string, { engine: Ajv; compiles: number }>();
  private library: ReturnType<typeof loadAjv> | undefined;
  /** What ajv warns of while it compiles the schema at hand (an unknown format, ignored): it says each twice. */
  private warnings = new Set<string>();

  async compile(schema: unknown, file: string): Promise<CompiledSchema> {
    // null and arrays are objects to typeof, and ajv reads a property of them as it starts: its TypeError named no rule.
    if ((typeof schema !== 'object' && typeof schema !== 'boolean') || schema === null || Array.isArray(schema)) throw new ConfigValidationError(file, ['a JSON schema must be an object or a boolean']);
    const engine = await this.engineFor(schema);
    try {
      const validate = this.compileWarning(engine, schema, file);
      const bound = evaluationBound(schema, nameMatcher((await (this.library ??= loadAjv())).linearRegExp));
      if (bound.kind === 'circular') return () => circling(file);
      if (bound.kind !== 'bounded') throw new ConfigValidationError(file, [unbounded(bound)]);
      return (data) => {
        try {
          return validate(data) ? [] : (validate.errors ?? []).map(violation);
        } catch (error) {
          // Values nest at most MAX_JSON_DEPTH levels: a check that exhausts the stack is a schema going round in a circle (`{"$ref": "#"}`).
          if (error instanceof RangeError) circling(file);
          throw error;
        }
      };
    } catch (error) {
      if (error instanceof ConfigValidationError) throw error;
      if (error instanceof NonLinearPatternError) throw new ConfigValidationError(file, [unboundedPattern(schema, error)]);
      // ajv compiles a subschema by recursion: a few hundred levels of nesting exhaust the stack.
      if (error instanceof RangeError) throw new ConfigValidationError(file, ['invalid JSON schema: it nests deeper than the schema compiler reads']);
      const dialect = (schema as { $schema?: unknown }).$schema;
      if ((error as Error).message === `no schema with key or ref "${String(dialect)}"`) throw new ConfigValidationError(file, [`its $schema ${String(dialect)} is not a JSON Schema dialect this tool reads (draft-04, draft-06, draft-07, 2019-09, 2020-12)`]);
      throw new ConfigValidationError(file, [`invalid JSON schema: ${(error as Error).message}`]);
    }
  }

  /** ajv's compile, its warnings written once each, naming the schema file ajv does not know. */
  private compileWarning(engine: Ajv, schema: unknown, file: string): ReturnType<Ajv['compile']> {
    this.warnings.clear();
    try {
      return compileIsolated(engine, schema as AnySchema);
    } finally {
      for (const warning of this.warnings) process.stderr.write(`warning: ${file}: ${warning}\n`);
      this.warnings.clear();
    }
  }

  private async engineFor(schema: unknown): Promise<Ajv> {
    this.library ??= loadAjv();
    const { Ajv, Ajv04, draft06, Ajv2019, Ajv2020, addFormats, linearRegExp, url } = await this.library;
    const dialect = typeof schema === 'object' && schema !== null ? String((schema as { $schema?: unknown }).$schema ?? '') : '';
    const kind = dialect.includes('2020-12') ? '2020' : dialect.includes('2019-09') ? '2019' : dialect.includes('draft-04') ? '04' : '07';
    const kept = this.engines.get(kind);
    if (kept && kept.compiles < COMPILES_PER_ENGINE) {
      kept.compiles++;
      return kept.engine;
    }
    // Patterns are matched by RE2 (see linearRegExp): items come from clients, and one string must not stall the reactor.
    // Own properties only: otherwise an item without `toString` or `constructor` has them, from Object.prototype.
    const logger = { log: console.log, error: console.error, warn: (...parts: unknown[]) => this.warnings.add(parts.map(String).join(' ')) };
    const options = { allErrors: true, strict: false, ownProperties: true, logger, code: { regExp: linearRegExp } };
    const engine = kind === '2020' ? new Ajv2020(options) : kind === '2019' ? new Ajv2019(options) : kind === '04' ? new Ajv04(options) : new Ajv(options);
    if (kind === '07') engine.addMetaSchema(draft06);
    addFormats(engine);
    lineariseFormats(engine, url);
    lineariseUniqueItems(engine);
    this.engines.set(kind, { engine, compiles: 1 });
    return engine;
  }
}

/**
 * Whether a property name matches a `patternProperties` pattern, as ajv will match it: a property the bound knows by
 * name is then not counted for the patterns it misses. A pattern that cannot be read is taken to match.
 */
function nameMatcher(linearRegExp: (pattern: string, flags: string) => PatternTest): NameMatcher {
  const compiled = new Map<string, PatternTest | undefined>();
  return (pattern, name) => {
    if (!compiled.has(pattern)) compiled.set(pattern, readable(() => linearRegExp(pattern, 'u')));
    return compiled.get(pattern)?.test(name) ?? true;
  };
}

function readable(compile: () => PatternTest): PatternTest | undefined {
  try {
    return compile();
  } catch {
    return undefined;
  }
}

/** A schema that goes round in a circle comes to no verdict: it is refused for each value, not run until the stack runs out. */
function circling(file: string): never {
  throw new UnusableSchemaError(`${file} cannot check a value: it refers to itself without ever descending into the value`);
}

/** Why a schema is refused for what one value may cost to check. */
function unbounded(bound: Exclude<EvaluationBound, { kind: 'bounded' | 'circular' }>): string {
  const limit = MAX_EVALUATIONS_PER_VALUE.toLocaleString('en-US');
  const accepted = `only schemas that check each value with at most ${limit} subschemas are accepted, as others can take time without bound`;
  if (bound.kind === 'intricate') return `its references are too intricate to count how many subschemas may check one value: ${accepted}`;
  const where = bound.depth === 0 ? 'one value' : `a value ${bound.depth} level${bound.depth === 1 ? '' : 's'} deep`;
  return `checking ${where} may take more than ${limit} subschema checks (anyOf, oneOf or allOf branches that refer to more such branches multiply): ${accepted}`;
}

/** Why a schema is refused for a pattern, and where it holds it. */
function unboundedPattern(schema: unknown, error: NonLinearPatternError): string {
  const places = patternPlaces(schema, error.pattern);
  const where = places.length > 0 ? ` at ${places.join(', ')}` : '';
  return `pattern ${JSON.stringify(error.pattern)}${where} ${error.reason}: only patterns RE2 matches in time linear in the text are accepted, as others can take time without bound`;
}

function violation(error: ErrorObject): SchemaViolation {
  const detail = error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})` : '';
  return { path: error.instancePath, message: `${error.message ?? 'is invalid'}${detail}` };
}
