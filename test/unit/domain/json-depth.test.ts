import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../src/domain/data/json-depth.js';

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
