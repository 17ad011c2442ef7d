import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AccessRecordRing, type AccessRecord } from '../../src/adapters/http/observability/access-record-ring.js';

const CAPACITY = 4096;
/** Strings of up to 40 units (any unit, lone surrogates too): eight records always fit the ring above. */
const text = fc.string({ unit: 'binary', maxLength: 40 });
const record = fc.record({
  time: fc.integer({ min: 0, max: 4102444800000 }),
  count: fc.nat(),
  method: fc.constantFrom('GET', 'HEAD', 'POST', 'M-SEARCH'),
  path: text,
  status: fc.integer({ min: 100, max: 599 }),
  micros: fc.nat({ max: 10 ** 9 }),
  client: fc.option(text, { nil: undefined }),
  mount: text,
  bytes: fc.nat(),
});

function drain(ring: AccessRecordRing): AccessRecord[] {
  const taken: AccessRecord[] = [];
  ring.release(ring.take((one) => taken.push(one)));
  return taken;
}

describe('AccessRecordRing', () => {
  it('hands over every record as it was put, in order, lap after lap of the ring', () => {
    fc.assert(
      fc.property(fc.array(fc.array(record, { maxLength: 8 }), { maxLength: 60 }), (batches) => {
        const ring = AccessRecordRing.create(CAPACITY);
        for (const batch of batches) {
          for (const one of batch) ring.put(one.count, one.time, one);
          expect(drain(ring)).toEqual(batch);
        }
        expect(ring.flush(0)).toBe(true);
      }),
    );
  });

  it('the other thread opens the same ring from its memory', () => {
    const ring = AccessRecordRing.create(CAPACITY);
    const other = new AccessRecordRing(ring.data, ring.control);
    const one = { method: 'GET', path: '/a', status: 200, micros: 1, client: '::1', mount: '/', bytes: 5 };
    ring.put(7, 1000, one);
    const taken: AccessRecord[] = [];
    other.release(other.take((record) => taken.push(record)));
    expect(taken).toEqual([{ ...one, count: 7, time: 1000 }]);
    expect(ring.flush(0)).toBe(true);
  });

  it('cuts any string longer than a thirty-second of the ring, so a record always fits', () => {
    const ring = AccessRecordRing.create(CAPACITY);
    const long = (letter: string) => letter.repeat(10_000);
    // Six of the largest records: some meet the end of the ring and skip it.
    for (let i = 0; i < 6; i++) {
      ring.put(1, 0, { method: long('M'), path: `/${long('p')}`, status: 414, micros: 1, client: long('c'), mount: long('m'), bytes: 0 });
      const [taken] = drain(ring);
      expect(taken).toMatchObject({ method: 'M'.repeat(CAPACITY / 32), path: `/${'p'.repeat(CAPACITY / 32 - 1)}`, client: 'c'.repeat(CAPACITY / 32), mount: 'm'.repeat(CAPACITY / 32) });
    }
  });

  it('a flush says whether the writer took everything in time', () => {
    const ring = AccessRecordRing.create(CAPACITY);
    ring.put(1, 0, { method: 'GET', path: '/', status: 200, micros: 1, client: undefined, mount: '/', bytes: 0 });
    const started = Date.now();
    expect(ring.flush(30)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    drain(ring);
    expect(ring.flush(30)).toBe(true);
  });

  it('holds a power of two bytes, at least 1 KiB', () => {
    expect(() => AccessRecordRing.create(3000)).toThrow(RangeError);
    expect(() => AccessRecordRing.create(512)).toThrow(RangeError);
  });
});
