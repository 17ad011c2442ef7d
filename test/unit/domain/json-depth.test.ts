import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, nestsDeeperThan, unstorableJson } from '../../../src/domain/data/json-depth.js';

/** The obvious recursive definition, for values shallow enough to recurse over. */
function depth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depth));
}

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { v: value };
  return value;
}

describe('JSON nesting limit', () => {
  it('agrees with the recursive definition on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 14 }), (value, max) => {
        expect(nestsDeeperThan(value, max)).toBe(depth(value) > max);
      }),
      { numRuns: 500 },
    );
  });

  it('walks 20,000 levels parsed from a body without exhausting the stack', () => {
    const body = '['.repeat(20_000) + ']'.repeat(20_000);
    const value = JSON.parse(body) as unknown;
    expect(nestsDeeperThan(value, MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('what an item may not hold', () => {
  it('finds a value too deep where the nesting limit does, and an infinite number at any depth within it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, max) => {
        expect(unstorableJson(value, max)).toBe(nestsDeeperThan(value, max) ? 'too deep' : undefined);
      }),
      { numRuns: 300 },
    );
    expect(unstorableJson(JSON.parse('{"a":[1,{"b":1e400}]}'), MAX_JSON_DEPTH)).toBe('infinite number');
    expect(unstorableJson(JSON.parse('-1e999'), 0)).toBe('infinite number');
    expect(unstorableJson({ a: Number.NaN }, 5)).toBe('infinite number');
    expect(unstorableJson(JSON.parse('{"a":[1.7976931348623157e308, -0, 5e-324]}'), MAX_JSON_DEPTH)).toBeUndefined();
  });
});

