import { describe, expect, it } from '@jest/globals';
import { CollectionQueries } from '../../../src/application/data/collection-queries.js';

const MiB = 1024 * 1024;

/** Items of about `size` bytes each, and an encoder that counts its calls. */
function collection(count: number, size: number) {
  const items = Array.from({ length: count }, (_, index) => ({ id: index + 1, text: 'y'.repeat(size) }));
  const encoder = { calls: 0, encode: (value: unknown) => (encoder.calls++, new TextEncoder().encode(JSON.stringify(value))) };
  return { items, encoder };
}

describe('collection queries', () => {
  it('answers a repeated query once per generation, however its parameters are ordered', () => {
    const { items, encoder } = collection(10, 10);
    const queries = new CollectionQueries(undefined);
    const first = queries.answer('id_gte=2&sort=-id', items, 1, encoder.encode);
    expect(queries.answer('sort=-id&id_gte=2', items, 1, encoder.encode)).toBe(first);
    expect(queries.answer('id_gte=2&sort=-id', items, 1, encoder.encode)).toBe(first);
    expect(encoder.calls).toBe(1);
    queries.answer('id_gte=2&sort=-id', items, 2, encoder.encode);
    expect(encoder.calls).toBe(2);
  });

  it('keeps answers within a byte bound: queries that each select a megabyte, spelled 64 ways, do not hold 64 of them', () => {
    const { items, encoder } = collection(20, MiB / 2);
    const queries = new CollectionQueries(undefined);
    // Each a different window of two items, about a megabyte.
    for (let offset = 0; offset < 18; offset++) queries.answer(`limit=2&offset=${offset}`, items, 1, encoder.encode);
    expect(encoder.calls).toBe(18);
    queries.answer('limit=2&offset=17', items, 1, encoder.encode);
    expect(encoder.calls).toBe(18);
    // The oldest went to make room.
    queries.answer('limit=2&offset=0', items, 1, encoder.encode);
    expect(encoder.calls).toBe(19);
  });

  it('keeps no answer larger than a quarter of the bound: each is made again', () => {
    const { items, encoder } = collection(8, MiB / 2);
    const queries = new CollectionQueries(undefined);
    for (let round = 0; round < 3; round++) queries.answer('limit=6', items, 1, encoder.encode);
    expect(encoder.calls).toBe(3);
  });
});
