import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_QUERY_TERMS, parseCollectionQuery, queryKey, selectItems, type QueryFields } from '../../../src/domain/data/collection-query.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../src/domain/data/json-depth.js';
import { InvalidQueryError, UnknownFieldError } from '../../../src/domain/errors.js';

const numbers: QueryFields = { has: (path) => path.length === 1 && ['n', 'id'].includes(path[0]!), typeOf: (path) => (path[0] === 'n' ? 'number' : 'string') };

describe('collection queries', () => {
  it('a bound selects exactly the items on its side of it, in collection order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 })), fc.integer({ min: -60, max: 60 }), fc.constantFrom('gte', 'lte', 'gt', 'lt', 'ne'), (values, bound, op) => {
        const items = values.map((n, index) => ({ id: String(index), n }));
        const test = { gte: (n: number) => n >= bound, lte: (n: number) => n <= bound, gt: (n: number) => n > bound, lt: (n: number) => n < bound, ne: (n: number) => n !== bound }[op];
        expect(selectItems(items, parseCollectionQuery([[`n_${op}`, String(bound)]], numbers))).toEqual(items.filter((item) => test(item.n)));
      }),
    );
  });

  it('reads numbers as JSON writes them: hex, binary, padded or empty forms are refused for a number field and for limit and offset, and match no number of an untyped field', () => {
    for (const odd of ['0x5', '0b101', '0o5', ' 5 ', '', '5.', '+5', 'Infinity']) {
      expect(() => parseCollectionQuery([['n', odd]], numbers)).toThrow(InvalidQueryError);
      expect(() => parseCollectionQuery([['limit', odd]], numbers)).toThrow(InvalidQueryError);
    }
    for (const odd of ['1e1', '0x2', '02.0']) expect(() => parseCollectionQuery([['offset', odd]], numbers)).toThrow(InvalidQueryError);
    expect(selectItems([{ id: '1', n: 5 }], parseCollectionQuery([['n', '5e0']], numbers))).toEqual([{ id: '1', n: 5 }]);
    const untyped: QueryFields = { has: () => true, typeOf: () => undefined };
    const items = [{ id: 1, n: 5 }, { id: 2, n: 0.5 }];
    for (const odd of ['0x5', '0b101', ' 5', '5e0', '5.0']) expect(selectItems(items, parseCollectionQuery([['n', odd]], untyped))).toEqual([]);
    expect(selectItems(items, parseCollectionQuery([['n', '5']], untyped))).toEqual([items[0]]);
    expect(selectItems(items, parseCollectionQuery([['n', '0.5']], untyped))).toEqual([items[1]]);
    expect(selectItems(items, parseCollectionQuery([['id', '0x1']], untyped))).toEqual([]);
    expect(selectItems(items, parseCollectionQuery([['n_gte', '0x1']], untyped))).toEqual([]);
    expect(selectItems(items, parseCollectionQuery([['n_gte', '1e0']], untyped))).toEqual([items[0]]);
  });

  it('sorts stably: items equal on the key keep their order, descending too', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 })), (values) => {
        const items = values.map((n, index) => ({ id: String(index), n }));
        const sorted = selectItems(items, parseCollectionQuery([['sort', '-n']], numbers)) as typeof items;
        for (let i = 1; i < sorted.length; i++) {
          expect(sorted[i - 1]!.n).toBeGreaterThanOrEqual(sorted[i]!.n);
          if (sorted[i - 1]!.n === sorted[i]!.n) expect(Number(sorted[i - 1]!.id)).toBeLessThan(Number(sorted[i]!.id));
        }
      }),
    );
  });

  it('puts items missing the sort field last, descending too', () => {
    const items = [{ id: 1, z: 'b' }, { id: 2 }, { id: 3, z: 'a' }];
    const fields: QueryFields = { has: (path) => path[0] === 'z', typeOf: () => undefined };
    const ids = (sort: string) => (selectItems(items, parseCollectionQuery([['sort', sort]], fields)) as typeof items).map((item) => item.id);
    expect(ids('z')).toEqual([3, 1, 2]);
    expect(ids('-z')).toEqual([1, 3, 2]);
  });

  it('orders strings by code point, in bounds and in sort: an emoji (U+1F600) comes after a full-width tilde (U+FF5E)', () => {
    const items = [{ id: 'emoji', s: '\u{1F600}' }, { id: 'tilde', s: '\uFF5E' }, { id: 'a', s: 'a' }];
    const fields: QueryFields = { has: (path) => path[0] === 's', typeOf: () => 'string' };
    const ids = (parameters: Array<[string, string]>) => (selectItems(items, parseCollectionQuery(parameters, fields)) as typeof items).map((item) => item.id);
    expect(ids([['s_gt', '\uFF5E']])).toEqual(['emoji']);
    expect(ids([['s_lt', '\u{1F600}']])).toEqual(['tilde', 'a']);
    expect(ids([['sort', 's']])).toEqual(['a', 'tilde', 'emoji']);
    expect(ids([['sort', '-s']])).toEqual(['emoji', 'tilde', 'a']);
  });

  it('finds q at any depth an item may have', () => {
    let deep: unknown = 'the needle';
    for (let level = 0; level < MAX_JSON_DEPTH - 1; level++) deep = { k: deep };
    const items = [{ id: 'deep', d: deep }, { id: 'shallow', d: 'hay' }];
    expect(nestsDeeperThan(items[0], MAX_JSON_DEPTH)).toBe(false);
    const everything: QueryFields = { has: () => true, typeOf: () => undefined };
    expect(selectItems(items, parseCollectionQuery([['q', 'NEEDLE']], everything))).toEqual([items[0]]);
  });

  it('never ignores a parameter: any name is a field, a reserved word, or refused', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (name, value) => {
        try {
          parseCollectionQuery([[name, value]], numbers);
        } catch (error) {
          expect(error instanceof InvalidQueryError || error instanceof UnknownFieldError).toBe(true);
        }
      }),
    );
  });

  it('bounds the work one query asks for: at most 100 filter values and sort keys, each sort key once', () => {
    const many = (count: number, name = 'n'): Array<[string, string]> => Array.from({ length: count }, (_, i) => [name, String(i)]);
    expect(parseCollectionQuery(many(MAX_QUERY_TERMS), numbers).filters[0]!.values).toHaveLength(MAX_QUERY_TERMS);
    expect(() => parseCollectionQuery(many(MAX_QUERY_TERMS + 1), numbers)).toThrow(new InvalidQueryError('a query takes at most 100 filter values and sort keys together'));
    expect(() => parseCollectionQuery([...many(MAX_QUERY_TERMS - 1), ['sort', 'n,-id']], numbers)).toThrow(InvalidQueryError);
    expect(() => parseCollectionQuery([['sort', Array.from({ length: 1_000_000 }, () => 'n').join(',')]], numbers)).toThrow(new InvalidQueryError('sort takes at most 100 keys (got 1000000)'));
    expect(() => parseCollectionQuery([['sort', 'n,-n']], numbers)).toThrow(new InvalidQueryError('sort names n more than once'));
    // Refused at the 101st value, before the millionth is looked at.
    let looked = 0;
    const counting = { has: () => (++looked, true), typeOf: () => 'number' as const };
    expect(() => parseCollectionQuery(many(1_000_000), counting)).toThrow(InvalidQueryError);
    expect(looked).toBe(MAX_QUERY_TERMS);
  });

  it('keys a query the same whatever the order of its parameters', () => {
    const a = parseCollectionQuery([['n', '1'], ['id', 'x'], ['sort', 'n']], numbers);
    const b = parseCollectionQuery([['sort', 'n'], ['id', 'x'], ['n', '1']], numbers);
    expect(queryKey(a)).toBe(queryKey(b));
    expect(queryKey(parseCollectionQuery([['n', '2']], numbers))).not.toBe(queryKey(a));
  });
});
