import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { accessLogLine, jsonLogLine } from '../../src/adapters/shared/json-log-line.js';

describe('JSON log lines', () => {
  // First in this file: the time cache is at its initial state.
  it('the first line of a process carries its own time, the epoch included', () => {
    const line = accessLogLine('abc-0', { method: 'GET', path: '/', status: 200, micros: 0, client: undefined, mount: '/', bytes: 0 }, 0);
    expect((JSON.parse(line) as { time: string }).time).toBe('1970-01-01T00:00:00.000Z');
  });

  it('an access line is one JSON object whatever the client sent as path or forwarded address', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.option(fc.string({ unit: fc.oneof(fc.constant('\u007f'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })) }), { nil: undefined }), fc.nat(), fc.nat({ max: 10 ** 9 }), fc.integer({ min: 0, max: 4102444800000 }), (path, client, bytes, micros, time) => {
        const line = accessLogLine('abc-1', { method: 'GET', path, status: 200, micros, client, mount: '/', bytes }, time);
        // One line, in printable ASCII: the log sink copies it byte for byte.
        expect(line).toMatch(/^[\x20-\x7e]*$/);
        const parsed = JSON.parse(line) as Record<string, unknown>;
        expect(parsed).toEqual({ level: 30, time: parsed.time, reqId: 'abc-1', method: 'GET', path, status: 200, ms: micros / 1000, ...(client === undefined ? {} : { client }), mount: '/', bytes, msg: 'request' });
        expect(parsed.time).toBe(new Date(time).toISOString());
      }),
    );
  });

  it('an occasional line keeps its fields and ends with the message, as pino writes them', () => {
    const line = jsonLogLine(40, 'not mounted: "x"', { source: 'x' });
    expect(Object.keys(JSON.parse(line) as object)).toEqual(['level', 'time', 'source', 'msg']);
    expect(JSON.parse(line)).toMatchObject({ level: 40, source: 'x', msg: 'not mounted: "x"' });
  });
});
