import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { historyOf, parseInstant, stateAt } from '../../../src/domain/data/item-history.js';
import type { Operation } from '../../../src/domain/data/operation-log.js';

const base = [
  { id: 'a', n: 1 },
  { id: 'b', n: 2 },
];
const log: Operation[] = [
  // Written by a version that kept no times: before every timed write.
  { op: 'replace', id: 'b', item: { id: 'b', n: 20 } },
  { op: 'create', id: 'c', item: { id: 'c', n: 3 }, at: '2026-01-01T10:00:00.000Z' },
  { op: 'replace', id: 'a', item: { id: 'a', n: 10 }, at: '2026-01-01T11:00:00.000Z' },
  { op: 'delete', id: 'c', at: '2026-01-01T12:00:00.000Z' },
];

describe('item history', () => {
  it('lists the base version, then each write to the item, oldest first', () => {
    expect(historyOf('a', base, log)).toEqual([
      { op: 'base', at: null, item: { id: 'a', n: 1 } },
      { op: 'replace', at: '2026-01-01T11:00:00.000Z', item: { id: 'a', n: 10 } },
    ]);
    expect(historyOf('c', base, log)).toEqual([
      { op: 'create', at: '2026-01-01T10:00:00.000Z', item: { id: 'c', n: 3 } },
      { op: 'delete', at: '2026-01-01T12:00:00.000Z' },
    ]);
    expect(historyOf('b', base, log)[1]).toEqual({ op: 'replace', at: null, item: { id: 'b', n: 20 } });
    expect(historyOf('zz', base, log)).toEqual([]);
  });

  it('gives the data as it stood at a time: writes after it do not count, untimed ones always do', () => {
    const list = (time: string) => stateAt(base, log, Date.parse(time)).list();
    expect(list('2025-01-01T00:00:00Z')).toEqual([{ id: 'a', n: 1 }, { id: 'b', n: 20 }]);
    expect(list('2026-01-01T10:00:00.000Z')).toEqual([{ id: 'a', n: 1 }, { id: 'b', n: 20 }, { id: 'c', n: 3 }]);
    expect(list('2026-01-01T11:30:00Z')).toEqual([{ id: 'a', n: 10 }, { id: 'b', n: 20 }, { id: 'c', n: 3 }]);
    expect(list('2030-01-01T00:00:00Z')).toEqual([{ id: 'a', n: 10 }, { id: 'b', n: 20 }]);
  });

  it('takes RFC 3339 date-times only', () => {
    expect(parseInstant('2026-01-01T11:00:00Z')).toBe(Date.parse('2026-01-01T11:00:00Z'));
    expect(parseInstant('2026-01-01T12:00:00.5+01:00')).toBe(Date.parse('2026-01-01T11:00:00.500Z'));
    for (const bad of ['', 'yesterday', '2026-01-01', '2026-13-01T00:00:00Z', '1700000000', '2026-01-01T00:00:00', '2020-02-30T00:00:00Z', '2021-02-29T00:00:00Z', '2020-01-01T24:00:00Z', '2020-01-01T00:60:00Z', '2020-01-01T00:00:00+24:00']) expect(parseInstant(bad)).toBeUndefined();
    expect(parseInstant('2024-02-29T23:59:59-23:59')).toBe(Date.parse('2024-02-29T23:59:59-23:59'));
    expect(parseInstant('0050-01-01T00:00:00Z')).toBe(Date.parse('0050-01-01T00:00:00Z'));
    fc.assert(fc.property(fc.string(), (text) => {
      const time = parseInstant(text);
      expect(time === undefined || Number.isFinite(time)).toBe(true);
    }));
  });
});
