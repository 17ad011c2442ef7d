import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { linearRegExp } from '../../src/adapters/schema/linear-regexp.js';
import { AjvSchemaValidator } from '../../src/adapters/schema/ajv-schema-validator.js';

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

  it('reads ECMAScript syntax: \\u escapes, \\p{...}, named groups; lookaround and backreferences run on JavaScript\'s engine', () => {
    expect(linearRegExp('^\\u00e9\\p{L}+$', 'u').test('éa')).toBe(true);
    expect(linearRegExp('(?<year>\\d{4})-\\d{2}', 'u').test('on 2024-05-01')).toBe(true);
    expect(linearRegExp('^(?=.*\\d)(?!.*x).{3,}$', 'u').test('ab1')).toBe(true);
    expect(linearRegExp('^(a)\\1$', 'u').test('aa')).toBe(true);
    expect(() => linearRegExp('a{2,1}', 'u')).toThrow(SyntaxError);
    expect(() => linearRegExp('\\-', 'u')).toThrow(SyntaxError);
  });

  it('matches as JavaScript does for any pattern of the usual constructs and any short string', () => {
    const atom = fc.constantFrom('a', 'b', '0', 'é', '-', '.', '\\d', '\\w', '\\s', '\\S', '\\D', '\\W', '\\b', '[a-c]', '[^a]', '[\\s\\d]', '[.a]', '[^\\sa]', '\\.', '😀', '\\u00e9');
    const quantifier = fc.constantFrom('', '', '*', '+', '?', '{1,2}', '*?', '+?');
    const piece = fc.tuple(atom, quantifier).map(([a, q]) => a + q);
    const sequence = fc.array(piece, { minLength: 1, maxLength: 4 }).map((pieces) => pieces.join(''));
    const pattern = fc
      .tuple(fc.boolean(), fc.array(sequence, { minLength: 1, maxLength: 2 }), fc.boolean(), fc.boolean())
      .map(([start, alternatives, group, end]) => `${start ? '^' : ''}${group ? `(${alternatives.join('|')})` : alternatives.join('|')}${end ? '$' : ''}`);
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

  it('match patterns with linearRegExp', async () => {
    const check = await new AjvSchemaValidator().compile({ type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^x(\\s*)*$': { type: 'number' } } }, 'items.schema.json');
    expect(check({ name: `${'a'.repeat(40)}!` }).map((violation) => violation.message)).toEqual([expect.stringContaining('must match pattern')]);
    expect(check({ name: 'aaa', [`x${' '.repeat(40)}!`]: 'anything' })).toEqual([]);
    expect(check({ name: 'aaa', [`x${' '.repeat(40)}`]: 'text' })).toHaveLength(1);
  });
});
