import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { LOG_CAPACITY, RequestLog } from '../../../src/application/serving/request-log.js';

const at = (ms: number) => Date.UTC(2026, 0, 1) + ms;

describe('RequestLog', () => {
  it('gives back the last lines in SPEC.md\'s format, oldest first, and counts by status', () => {
    const log = new RequestLog();
    expect(log.record('GET', '/a', 200, at(0))).toBe('2026-01-01T00:00:00.000Z GET /a -> 200');
    log.record('POST', '/été', 201, at(1));
    log.record('GET', '/c', 404, at(1));
    expect(log.last(2)).toEqual(['2026-01-01T00:00:00.001Z POST /été -> 201', '2026-01-01T00:00:00.001Z GET /c -> 404']);
    expect(log.last(10)).toHaveLength(3);
    expect(log.last(0)).toEqual([]);
    expect(log.metrics()).toEqual({ requestsTotal: 3, requestsByStatus: { '200': 1, '201': 1, '404': 1 } });
  });

  it('keeps the last thousand lines, or as many of the last as its bytes hold, each whole', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 2000 }), { minLength: 1, maxLength: 3 * LOG_CAPACITY }), (paths) => {
        const log = new RequestLog();
        const lines = paths.map((path, i) => log.record('GET', `/${path}`, 200, at(i)));
        const kept = log.last(LOG_CAPACITY);
        expect(kept.length).toBeGreaterThan(0);
        expect(kept.length).toBeLessThanOrEqual(LOG_CAPACITY);
        expect(kept).toEqual(lines.slice(lines.length - kept.length));
        if (lines.length <= LOG_CAPACITY && paths.every((path) => path.length < 80)) expect(kept).toHaveLength(lines.length);
      }),
      { numRuns: 40 },
    );
  });

  it('cuts a line longer than its ring, and still gives it back', () => {
    const log = new RequestLog();
    const line = log.record('GET', `/${'x'.repeat(200_000)}`, 414, at(0));
    expect(line.length).toBeLessThan(200_000);
    expect(log.last(1)).toEqual([line]);
  });
});
