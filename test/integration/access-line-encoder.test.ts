import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AccessLineEncoder } from '../../src/adapters/http/observability/access-line-encoder.js';
import { AccessRecordRing, type AccessRecord, type AccessRecordView } from '../../src/adapters/http/observability/access-record-ring.js';
import { LineSink } from '../../src/adapters/http/line-sink.js';
import { accessLogLine } from '../../src/adapters/shared/json-log-line.js';

const PREFIX = '3lw-mwzeh3kz-';
/** Mostly what requests carry, and now and then any unit at all (quotes, controls, lone surrogates). */
const text = fc.oneof(fc.stringMatching(/^[\x20-\x7e]{0,30}$/), fc.string({ unit: 'binary', maxLength: 30 }));
const record = fc.record({
  time: fc.oneof(fc.integer({ min: 0, max: 4102444800000 }), fc.constantFrom(-1, 253402300800000)),
  count: fc.oneof(fc.nat(), fc.maxSafeNat(), fc.constant(2 ** 60)),
  method: fc.constantFrom('GET', 'HEAD', 'POST', 'M-SEARCH', 'PROPFIND'),
  path: text,
  status: fc.integer({ min: 100, max: 599 }),
  micros: fc.oneof(fc.nat({ max: 10 ** 9 }), fc.maxSafeNat(), fc.constant(1.5)),
  client: fc.option(text, { nil: undefined }),
  mount: text,
  bytes: fc.oneof(fc.nat(), fc.maxSafeNat()),
});

/** What the sink writes for the records, put through a ring and encoded in place. */
function encoded(records: AccessRecord[], ringBytes = 64 * 1024): string {
  const ring = AccessRecordRing.create(ringBytes);
  const written: Buffer[] = [];
  const sink = new LineSink((bytes) => void written.push(bytes), Infinity);
  const encoder = new AccessLineEncoder(PREFIX);
  for (const one of records) ring.put(one.count, one.time, one);
  ring.release(ring.each((view: AccessRecordView) => sink.pushEncoded(encoder, view)));
  sink.flush();
  return Buffer.concat(written).toString('latin1');
}

/** The line as the reactor builds it without the writer thread: the string, copied a byte per unit. */
function expected(records: AccessRecord[]): string {
  return records.map((one) => `${Buffer.from(accessLogLine(PREFIX + one.count, one, one.time), 'latin1').toString('latin1')}\n`).join('');
}

describe('AccessLineEncoder', () => {
  it('writes, byte for byte, the line accessLogLine builds, for any record', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 12 }), (records) => {
        expect(encoded(records)).toBe(expected(records));
      }),
    );
  });

  it('a line longer than the sink holds is written alone, whole', () => {
    // Every unit of the path escaped as \uXXXX: six bytes each, well past the sink's 64 KiB.
    const long: AccessRecord = { time: 0, count: 1, method: 'GET', path: '\u00e9'.repeat(30_000), status: 414, micros: 5, client: '::1', mount: '/', bytes: 0 };
    const short: AccessRecord = { ...long, count: 2, path: '/a' };
    const lines = encoded([short, long, short], 1 << 22);
    expect(lines).toBe(expected([short, long, short]));
    expect(lines.length).toBeGreaterThan(180_000);
  });
});
