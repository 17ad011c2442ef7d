import { describe, expect, it, jest } from '@jest/globals';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { linearRegExp } from '../../src/adapters/schema/linear-regexp.js';
import { NonLinearPatternError } from '../../src/adapters/schema/non-linear-pattern-error.js';
import { ConfigValidationError, UnusableSchemaError } from '../../src/domain/errors.js';
import { AjvSchemaValidator } from '../../src/adapters/schema/ajv-schema-validator.js';
import { doublingSchema } from '../support/doubling-schema.js';
import { evaluationBound } from '../../src/adapters/schema/evaluation-bound.js';

/** The same answer as JavaScript's engine, or the same refusal of the pattern. */
function same(pattern: string, text: string): void {
  let expected: boolean;
  try {
    expected = new RegExp(pattern, 'u').test(text);
  } catch (error) {
    expect(() => linearRegExp(pattern, 'u')).toThrow((error as Error).constructor as typeof SyntaxError);
    return;
  }
  expect(linearRegExp(pattern, 'u').test(text)).toBe(expected);
}

describe('schema patterns on RE2 (linearRegExp)', () => {
  it('answers in linear time where JavaScript backtracks for ever', () => {
    // JavaScript's engine: about 40 seconds at 30 characters, twice that for each one more. Jest's timeout fails a regression.
    expect(linearRegExp('^(a+)+$', 'u').test(`${'a'.repeat(5000)}!`)).toBe(false);
    expect(linearRegExp('^(\\w+\\s?)*$', 'u').test(`${'word '.repeat(5000)}!`)).toBe(false);
    expect(linearRegExp('^(a|aa)+$', 'u').test('a'.repeat(5000))).toBe(true);
  });

  it('keeps ECMAScript meanings where RE2 differs: ., \\s and \\S, inside and outside classes', () => {
    for (const text of ['\r', '\n', '\u2028', '\u00a0', '\u000b', '\ufeff', ' ', 'x', '😀', 'é']) {
      for (const pattern of ['^.$', '^\\s$', '^\\S$', '^[\\s]$', '^[x\\s]$', '^[^\\s]$', '^[\\S]$', '^[.]$', '^\\.$', '^\\\\s$']) same(pattern, text);
    }
    same('^[^]$', '\n');
    same('^[]$', 'x');
  });

  it('reads ECMAScript syntax: \\u escapes, \\p{...} by any of its names, named groups, lookbehinds, lookaheads right after a leading ^', () => {
    expect(linearRegExp('^\\u00e9\\p{L}+$', 'u').test('éa')).toBe(true);
    expect(linearRegExp('(?<year>\\d{4})-\\d{2}', 'u').test('on 2024-05-01')).toBe(true);
    for (const text of ['a', 'Ω', '1', '٣', ' ', 'é', '\u0301', '😀', '$', 'A']) {
      for (const property of ['\\p{Letter}', '\\p{Script=Greek}', '\\p{sc=Latin}', '\\p{gc=Lu}', '\\p{General_Category=Decimal_Number}', '\\p{ASCII}', '[^\\P{ASCII}a]', '\\P{Number}', '\\p{Alphabetic}']) same(`^${property}$`, text);
      for (const pattern of ['^(?=.*\\d)(?!.*x).{3,}$', '^(?!$)', '^(?=[a-z]|\\d)(?=(?<=^)a|1)', '(?<=a)b', '(?<!\\d)a$', '^(?=\\p{L})']) same(pattern, `${text}ab1`);
    }
    expect(() => linearRegExp('a{2,1}', 'u')).toThrow(SyntaxError);
    expect(() => linearRegExp('\\-', 'u')).toThrow(SyntaxError);
  });

  it("refuses, with the reason, what it cannot match in linear time, where JavaScript's engine has no bound", () => {
    // The leading lookahead is a check of its own; the rest is RE2's: 5,000 characters, at once.
    expect(linearRegExp('^(?=a)(a+)+$', 'u').test(`${'a'.repeat(5000)}!`)).toBe(false);
    expect(linearRegExp('^(?=a)(a+)+$', 'u').test('a'.repeat(5000))).toBe(true);
    const refusal = (pattern: string) => {
      try {
        linearRegExp(pattern, 'u');
      } catch (error) {
        return error instanceof NonLinearPatternError ? [error.pattern, error.reason] : error;
      }
      return 'accepted';
    };
    expect(refusal('^(a+)+(?=!)')).toEqual(['^(a+)+(?=!)', expect.stringContaining('lookahead')]);
    expect(refusal('^(?=a)b|c')).toEqual(['^(?=a)b|c', expect.stringContaining('lookahead')]);
    expect(refusal('^(?=(?!b)a)')).toEqual(['^(?=(?!b)a)', expect.stringContaining('lookahead')]);
    expect(refusal('^(a)\\1$')).toEqual(['^(a)\\1$', expect.stringContaining('backreference')]);
    // RE2 would read \k<n> as the text k<n>.
    expect(refusal('^(?=x)(?<n>a)\\k<n>$')).toEqual(['^(?=x)(?<n>a)\\k<n>$', expect.stringContaining('backreference')]);
    expect(refusal('(?<=(a))b')).toEqual(['(?<=(a))b', expect.stringContaining('capturing group inside a lookbehind')]);
    expect(refusal('\\p{Script_Extensions=Latin}')).toEqual(['\\p{Script_Extensions=Latin}', expect.stringContaining('RE2 cannot match')]);
  });

  it('matches as JavaScript does for any pattern of the usual constructs and any short string', () => {
    const atom = fc.constantFrom('a', 'b', '0', 'é', '-', '.', '\\d', '\\w', '\\s', '\\S', '\\D', '\\W', '\\b', '[a-c]', '[^a]', '[\\s\\d]', '[.a]', '[^\\sa]', '\\.', '😀', '\\u00e9', '(?<=a)', '(?<!\\d)');
    const quantifier = fc.constantFrom('', '', '*', '+', '?', '{1,2}', '*?', '+?');
    const piece = fc.tuple(atom, quantifier).map(([a, q]) => a + q);
    const sequence = fc.array(piece, { minLength: 1, maxLength: 4 }).map((pieces) => pieces.join(''));
    const pattern = fc
      .tuple(fc.boolean(), fc.array(sequence, { minLength: 1, maxLength: 2 }), fc.boolean(), fc.boolean(), fc.array(fc.tuple(fc.constantFrom('=', '!'), sequence), { maxLength: 2 }))
      .map(([start, alternatives, group, end, lookaheads]) => {
        // Lookaheads only where RE2 can take them: right after ^, alternatives grouped.
        const ahead = start && (group || alternatives.length === 1) ? lookaheads.map(([kind, body]) => `(?${kind}${body})`).join('') : '';
        return `${start ? '^' : ''}${ahead}${group ? `(${alternatives.join('|')})` : alternatives.join('|')}${end ? '$' : ''}`;
      });
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '0', '1', 'é', ' ', '\n', '\r', '\u2028', '\u00a0', '\u000b', '\ufeff', '😀', '-', '.', '_'), { maxLength: 8 }).map((chars) => chars.join(''));
    fc.assert(fc.property(pattern, text, (p, t) => same(p, t)), { numRuns: Number(process.env.FUZZ_RUNS ?? 2000) });
  });

});

describe('dataset schemas (AjvSchemaValidator)', () => {
  it('see an item\'s own properties only: toString and constructor are not there unless the item holds them', async () => {
    const check = await new AjvSchemaValidator().compile({ type: 'object', required: ['constructor'], properties: { toString: { type: 'string' }, constructor: { type: 'string' }, valueOf: { type: 'number' } } }, 'items.schema.json');
    expect(check({ constructor: 'c' })).toEqual([]);
    expect(check({}).map((violation) => violation.message)).toEqual(["must have required property 'constructor'"]);
    expect(check(JSON.parse('{"constructor": "c", "toString": 1}')).map((violation) => violation.path)).toEqual(['/toString']);
  });

  it('check uniqueItems in time linear in the array, with JSON Schema\'s equality, in every dialect', async () => {
    for (const dialect of [{}, { $schema: 'https://json-schema.org/draft/2020-12/schema' }]) {
      const check = await new AjvSchemaValidator().compile({ ...dialect, type: 'object', properties: { tags: { type: 'array', uniqueItems: true }, names: { type: 'array', items: { type: 'string' }, uniqueItems: true } } }, 'items.schema.json');
      // ajv compared every pair of untyped items: 60,000 of them took it minutes; Jest's timeout fails a regression.
      expect(check({ tags: Array.from({ length: 60_000 }, (_, n) => ({ n })) })).toEqual([]);
      expect(check({ tags: [{ a: 1, b: [2, { c: null }] }, 'x', { b: [2, { c: null }], a: 1 }], names: ['a', 'b', 'a'] })).toEqual([
        { path: '/tags', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' },
        { path: '/names', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' },
      ]);
      expect(check({ tags: [1, '1', [1, 2], [2, 1], { a: 1 }, { a: '1' }, null, 'null', 0.5] })).toEqual([]);
      expect(check({ tags: [0, -0] })).toHaveLength(1);
    }
  });

  it('check the url format in time linear in the string, with the same answers as ajv-formats\' own expression', async () => {
    const check = await new AjvSchemaValidator().compile({ type: 'string', format: 'url' }, 'items.schema.json');
    // ajv-formats' expression: 4 s at 60 KB, minutes for a value the size a POST may be; Jest's timeout fails a regression.
    expect(check(`http://${'::1'.repeat(100_000)}`)).toHaveLength(1);
    expect(check(`http://${'u:p'.repeat(100_000)}@example.org/`)).toEqual([]);
    const original = fullFormats.url as RegExp;
    const url = fc.stringMatching(/^(?:https?|ftp):\/\/[a-z0-9:@./\- %é]{0,24}$/);
    fc.assert(fc.property(url, (text) => expect(check(text).length === 0).toBe(original.test(text))), { numRuns: 2000 });
    for (const text of ['http://u:p@a.com/x', 'http://u:@a.com', 'http://:p@a.com', 'http://@a.com', 'ftp://x@y@z.org', 'http://a b@c.com', 'http://10.0.0.1', 'http://a.com:123456']) expect(check(text).length === 0).toBe(original.test(text));
  });

  it('match patterns with linearRegExp', async () => {
    const check = await new AjvSchemaValidator().compile({ type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^x(\\s*)*$': { type: 'number' } } }, 'items.schema.json');
    expect(check({ name: `${'a'.repeat(40)}!` }).map((violation) => violation.message)).toEqual([expect.stringContaining('must match pattern')]);
    expect(check({ name: 'aaa', [`x${' '.repeat(40)}!`]: 'anything' })).toEqual([]);
    expect(check({ name: 'aaa', [`x${' '.repeat(40)}`]: 'text' })).toHaveLength(1);
  });

  it('refuse a schema with a pattern RE2 cannot match in linear time, naming the file, where the pattern is and why', async () => {
    const compile = (schema: unknown) => new AjvSchemaValidator().compile(schema, 'data/items.schema.json');
    const refused = compile({ type: 'object', properties: { id: { type: 'string', pattern: '^(a+)+(?=!)' } } });
    await expect(refused).rejects.toBeInstanceOf(ConfigValidationError);
    await expect(refused).rejects.toMatchObject({ file: 'data/items.schema.json', issues: [expect.stringMatching(/^pattern "\^\(a\+\)\+\(\?=!\)" at \/properties\/id\/pattern holds a lookahead .*linear/)] });
    const key = '^(x)\\1/~';
    await expect(compile({ $defs: { pattern: { patternProperties: { [key]: { type: 'number' } } } }, items: { $ref: '#/$defs/pattern' }, enum: [{ pattern: key }] })).rejects.toMatchObject({
      issues: [expect.stringContaining('at /$defs/pattern/patternProperties/^(x)\\1~1~0 holds a backreference')],
    });
  });

  it('warn once of an unknown format, naming the schema file, where ajv said it twice without the file', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const check = await new AjvSchemaValidator().compile({ type: 'object', properties: { a: { type: 'string', format: 'frobnicate' } } }, 'data/items.schema.json');
      expect(check({ a: 'anything' })).toEqual([]);
      expect(stderr.mock.calls.map(([text]) => String(text))).toEqual(['warning: data/items.schema.json: unknown format "frobnicate" ignored in schema at path "#/properties/a"\n']);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      warn.mockRestore();
    }
  });

  it('compile the same $id again, and never let one schema refer to another compiled before it by its $id', async () => {
    const validator = new AjvSchemaValidator();
    const schema = () => ({ $id: 'https://example.org/item.json', type: 'object', properties: { n: { $id: 'https://example.org/n.json', type: 'number' }, m: { $ref: 'n.json' } } });
    // Two datasets sharing one schema file: the second was refused, "already exists".
    for (const file of ['data/a.schema.json', 'data/b.schema.json']) expect((await validator.compile(schema(), file))({ n: 1, m: 'x' })).toEqual([{ path: '/m', message: 'must be number' }]);
    for (const reference of ['https://example.org/item.json', 'https://example.org/n.json']) {
      await expect(validator.compile({ $ref: reference }, 'other/c.schema.json')).rejects.toMatchObject({ file: 'other/c.schema.json', issues: [expect.stringContaining("can't resolve reference")] });
    }
  });

  it('keep no part of the schemas they compiled once their validators are gone: a reactor reloaded under --watch does not grow at each reload', async () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const heapAfterCollecting = () => (collect(), collect(), process.memoryUsage().heapUsed);
    const validator = new AjvSchemaValidator();
    const schema = () => ({ type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[a-z0-9-]+$' }, published: { type: 'string', format: 'date' } } });
    const reloads = async (count: number) => {
      for (let i = 0; i < count; i++) expect((await validator.compile(schema(), 'data/articles.schema.json'))({ id: 'A' })).toHaveLength(1);
    };
    await reloads(200);
    const before = heapAfterCollecting();
    // ajv kept about 7 KB of each compiled schema for as long as its engine lived: 10 MB here.
    await reloads(1500);
    expect(heapAfterCollecting() - before).toBeLessThan(4 * 1024 * 1024);
  });

  it('keep its meta-schemas when a schema takes one\'s $id: the schemas after it that name that $schema still compile', async () => {
    const validator = new AjvSchemaValidator();
    for (const [dialect, id] of [
      ['http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-07/schema#'],
      ['https://json-schema.org/draft/2020-12/schema', 'https://json-schema.org/draft/2020-12/meta/core'],
    ]) {
      // A dataset of schemas, checked by a copy of the meta-schema: ajv holds that $id already.
      await expect(validator.compile({ $schema: dialect, $id: id, type: 'object' }, 'data/schemas.schema.json')).rejects.toMatchObject({ issues: [expect.stringContaining('already exists')] });
      // The engine had lost its meta-schema: every later schema naming it was refused, "no schema with key or ref".
      expect((await validator.compile({ $schema: dialect, type: 'string' }, 'data/items.schema.json'))(1)).toEqual([{ path: '', message: 'must be string' }]);
    }
  });

  it('read draft-04 schemas (what the Ruby reference implementation\'s json-schema gem writes) and draft-06 ones by their $schema, and name a dialect it does not read', async () => {
    const validator = new AjvSchemaValidator();
    const draft04 = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      id: 'http://example.org/item.json',
      type: 'object',
      required: ['n'],
      properties: { n: { type: 'number', maximum: 5, exclusiveMaximum: true }, tag: { $ref: 'tag.json' } },
      definitions: { tag: { id: 'tag.json', type: 'string' } },
    };
    const check = await validator.compile(draft04, 'data/items.schema.json');
    expect(check({ n: 4, tag: 'a' })).toEqual([]);
    // Draft-04's boolean exclusiveMaximum, and a reference resolved by a subschema's `id`.
    expect(check({ n: 5, tag: 1 })).toEqual([{ path: '/n', message: 'must be < 5' }, { path: '/tag', message: 'must be string' }]);
    const draft06 = await validator.compile({ $schema: 'http://json-schema.org/draft-06/schema#', type: 'object', propertyNames: { maxLength: 2 } }, 'data/items.schema.json');
    expect(draft06({ abc: 1 })).toEqual([{ path: '', message: 'must NOT have more than 2 characters' }, { path: '', message: 'property name must be valid' }]);
    await expect(validator.compile({ $schema: 'http://json-schema.org/draft-03/schema#', type: 'string' }, 'data/items.schema.json')).rejects.toMatchObject({ file: 'data/items.schema.json', issues: ['its $schema http://json-schema.org/draft-03/schema# is not a JSON Schema dialect this tool reads (draft-04, draft-06, draft-07, 2019-09, 2020-12)'] });
  });

  it('bound draft-04 schemas through the references their `id`s name', async () => {
    // Each level a resource of its own, named by draft-04's `id`: references the bound did not resolve would go uncounted.
    const levels = 24;
    const definitions: Record<string, unknown> = { [`d${levels}`]: { id: `d${levels}.json`, type: 'string' } };
    for (let level = 0; level < levels; level++) definitions[`d${level}`] = { id: `d${level}.json`, anyOf: [{ $ref: `d${level + 1}.json` }, { $ref: `d${level + 1}.json` }] };
    const schema = { $schema: 'http://json-schema.org/draft-04/schema#', id: 'http://example.org/root.json', definitions, $ref: 'd0.json' };
    await expect(new AjvSchemaValidator().compile(schema, 'data/items.schema.json')).rejects.toMatchObject({ issues: [expect.stringMatching(/^checking one value may take more than 10,000 subschema checks/)] });
  });

  it('refuse null, an array and a schema nested past what the compiler reads with the rule broken, not the compiler\'s own TypeError or RangeError', async () => {
    const compile = (schema: unknown) => new AjvSchemaValidator().compile(schema, 'data/items.schema.json');
    for (const schema of [null, []]) await expect(compile(schema)).rejects.toMatchObject({ file: 'data/items.schema.json', issues: ['a JSON schema must be an object or a boolean'] });
    let deep: unknown = { type: 'object' };
    for (let level = 0; level < 5000; level++) deep = { properties: { a: deep } };
    await expect(compile(deep)).rejects.toMatchObject({ file: 'data/items.schema.json', issues: ['invalid JSON schema: it nests deeper than the schema compiler reads'] });
  });
});

describe('dataset schemas: the cost of checking one value is bounded when the schema is read', () => {
  const compile = (schema: unknown) => new AjvSchemaValidator().compile(schema, 'data/items.schema.json');

  it('refuse a schema whose anyOf branches refer to more of them, naming the file and the limit, at once', async () => {
    // 18 levels took ajv half a second and 524,287 errors per item; 24 levels did not finish.
    // Before the bound, 24 levels ran past this test's time limit; the limit, not a clock here, is what catches a stall (a busy machine is slow, not wrong).
    for (const levels of [14, 24, 60]) await expect(compile(doublingSchema(levels))).rejects.toMatchObject({ file: 'data/items.schema.json', issues: [expect.stringMatching(/^checking one value may take more than 10,000 subschema checks/)] });
    // The same doubling one level down per branch: exponential in how deep the value nests, which a client chooses.
    const nested = { $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: { t: { anyOf: [{ items: { $ref: '#/$defs/t' } }, { items: { $ref: '#/$defs/t' } }] } }, $ref: '#/$defs/t' };
    await expect(compile(nested)).rejects.toMatchObject({ issues: [expect.stringMatching(/^checking a value 1\d levels deep may take more than 10,000/)] });
  });

  it('accept unions, references and recursion that descends into the value: a tree checks each node once', async () => {
    await expect(compile(doublingSchema(8))).resolves.toBeInstanceOf(Function);
    const tree = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } }, left: { $ref: '#' }, right: { $ref: '#' } } };
    const check = await compile(tree);
    let deep: unknown = { name: 'leaf' };
    for (let level = 0; level < 60; level++) deep = level % 2 === 0 ? { name: `n${level}`, left: deep, right: { name: 'r' } } : { name: `n${level}`, children: [{ name: 'c' }, deep] };
    expect(check(deep)).toEqual([]);
    const expression = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: {
        expr: { oneOf: [{ $ref: '#/$defs/number' }, { $ref: '#/$defs/sum' }, { $ref: '#/$defs/negation' }] },
        number: { type: 'number' },
        sum: { type: 'object', properties: { left: { $ref: '#/$defs/expr' }, right: { $ref: '#/$defs/expr' } }, required: ['left', 'right'] },
        negation: { type: 'object', properties: { operand: { $dynamicRef: '#node' } }, required: ['operand'] },
      },
      $dynamicAnchor: 'node',
      allOf: [{ $ref: '#/$defs/expr' }, { not: { type: 'string' } }],
    };
    expect((await compile(expression))({ left: 1, right: { operand: { left: 2, right: 3 } } })).toEqual([]);
    for (const schema of [true, {}, { $ref: 'http://json-schema.org/draft-07/schema#' }, { anyOf: Array.from({ length: 500 }, (_, n) => ({ const: n })) }]) await expect(compile(schema)).resolves.toBeInstanceOf(Function);
  });

  it('count additionalProperties and patternProperties only for the names ajv applies them to, and both where a name is matched twice', async () => {
    // A tree whose named child and other keys are both nodes: each value is checked once, but was counted twice a level, and refused.
    const others = { type: 'object', properties: { label: { type: 'string' }, child: { $ref: '#' } }, additionalProperties: { $ref: '#' } };
    const extensions = { type: 'object', properties: { child: { $ref: '#' } }, patternProperties: { '^x-': { $ref: '#' } } };
    for (const schema of [others, extensions]) {
      const check = await compile(schema);
      let deep: unknown = { label: 'leaf' };
      for (let level = 0; level < 40; level++) deep = { child: deep, 'x-note': { label: `n${level}` } };
      expect(check(deep)).toEqual([]);
    }
    // A named property its pattern also matches is checked twice a level: 2^depth, still refused.
    const twice = { type: 'object', properties: { 'x-child': { $ref: '#' } }, patternProperties: { '^x-': { $ref: '#' } } };
    await expect(compile(twice)).rejects.toMatchObject({ issues: [expect.stringMatching(/^checking a value 1\d levels deep may take more than 10,000/)] });
    // Unknown names may match every pattern and miss them all: additionalProperties beside a pattern still counts for them.
    const both = { type: 'object', patternProperties: { '^x-': { $ref: '#' } }, additionalProperties: { $ref: '#' }, properties: { items: { type: 'array', items: { $ref: '#' } } } };
    await expect(compile({ allOf: [both, both] })).rejects.toMatchObject({ issues: [expect.stringMatching(/^checking a value \d+ levels? deep/)] });
  });

  it('count the costlier of then and else, as ajv checks a value by one of them, and then with if, as ajv checks both', async () => {
    // An open node's children, or a closed one's few: each value is checked once, but was counted twice a level, and refused.
    const kids = (more: object) => ({ properties: { kids: { type: 'array', items: { $ref: '#' }, ...more } } });
    const check = await compile({ type: 'object', if: { required: ['open'] }, then: kids({}), else: kids({ maxItems: 3 }) });
    let deep: unknown = {};
    for (let level = 0; level < 40; level++) deep = { ...(level % 2 === 0 ? { open: true } : {}), kids: [deep] };
    expect(check(deep)).toEqual([]);
    // `if` is checked, then its `then`: both descending, 2^depth, still refused; so is a `then` beside the same schema.
    const node = { type: 'object', ...kids({}) };
    const refused = expect.stringMatching(/^checking a value \d+ levels deep may take more than 10,000/);
    await expect(compile({ $defs: { node }, if: { $ref: '#/$defs/node' }, then: { $ref: '#/$defs/node' } })).rejects.toMatchObject({ issues: [refused] });
    await expect(compile({ $defs: { node }, allOf: [{ if: { required: ['a'] }, then: { $ref: '#/$defs/node' } }, { $ref: '#/$defs/node' }] })).rejects.toMatchObject({ issues: [refused] });
  });

  it('count additionalItems only for the positions past those items lists, as ajv applies it', async () => {
    // An expression as a list, ['+', operand, operand...]: each operand is checked once, but the second was counted twice a level, and refused.
    const expression = { anyOf: [{ type: 'number' }, { type: 'array', items: [{ enum: ['+', '*'] }, { $ref: '#' }], additionalItems: { $ref: '#' } }] };
    const check = await compile(expression);
    let deep: unknown = 1;
    for (let level = 0; level < 40; level++) deep = ['+', deep, 2];
    expect(check(deep)).toEqual([]);
    // contains checks every item, listed or not: with items, twice a level, still refused.
    const twice = { type: 'array', items: [{ $ref: '#' }], additionalItems: { $ref: '#' }, contains: { $ref: '#' } };
    await expect(compile(twice)).rejects.toMatchObject({ issues: [expect.stringMatching(/^checking a value \d+ levels deep may take more than 10,000/)] });
  });

  it('bound a wide schema (3,000 properties, each a oneOf of shared definitions) within its budget, and accept it', () => {
    const definitions = Object.fromEntries(
      Array.from({ length: 50 }, (_, d) => [`t${d}`, { type: 'object', properties: Object.fromEntries(Array.from({ length: 20 }, (_, p) => [`f${p}`, p % 5 === 0 ? { $ref: `#/$defs/t${(d + 1) % 50}` } : { type: 'string' }])) }]),
    );
    const properties = Object.fromEntries(Array.from({ length: 3000 }, (_, n) => [`p${n}`, { oneOf: [0, 1, 2, 3, 4].map((k) => ({ $ref: `#/$defs/t${(n + k) % 50}` })) }]));
    // Walked name by name through every checker at once, it ran out of its budget of steps and was refused as too intricate.
    expect(evaluationBound({ type: 'object', $defs: definitions, properties })).toEqual({ kind: 'bounded' });
  });

  it('refuse each value, at once, for a schema that refers to itself without descending', async () => {
    for (const schema of [{ $ref: '#' }, { $defs: { a: { anyOf: [{ $ref: '#/$defs/b' }, { type: 'string' }] }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, items: { $ref: '#/$defs/a' } }]) {
      const check = await compile(schema);
      expect(() => check([1])).toThrow(UnusableSchemaError);
    }
  });

  it('bound any schema of unions, references and recursion, refusing one only as an invalid schema', async () => {
    const names = ['a', 'b', 'c', 'd'];
    const schema: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom({ type: 'string' }, true, { $ref: '#' }, ...names.map((name) => ({ $ref: `#/$defs/${name}` }))),
        fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
        fc.record({ allOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
        fc.record({ properties: fc.dictionary(fc.constantFrom('x', 'y'), tie('node')) }),
        fc.record({ items: tie('node') }),
      ),
    })).node;
    const validator = new AjvSchemaValidator();
    const document = fc.record({ $defs: fc.record(Object.fromEntries(names.map((name) => [name, schema]))), items: schema });
    await fc.assert(
      fc.asyncProperty(document, async (candidate) => {
        await validator.compile(candidate, 'data/items.schema.json').catch((error: unknown) => expect(error).toBeInstanceOf(ConfigValidationError));
      }),
      { numRuns: 100 },
    );
  });
});
