import { describe, expect, it } from '@jest/globals';
import { LineSink } from '../../src/adapters/http/line-sink.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LineSink', () => {
  it('writes the lines of one turn of the event loop in one write', async () => {
    const writes: string[] = [];
    const sink = new LineSink((bytes) => void writes.push(bytes.toString()));
    sink.push('a');
    sink.push('b');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['a\nb\n']);
  });

  it('with a delay, gathers lines across turns, and never holds more than 64 KiB', async () => {
    const writes: string[] = [];
    const sink = new LineSink((bytes) => void writes.push(bytes.toString()), 30);
    sink.push('a');
    await turn();
    sink.push('b');
    expect(writes).toEqual([]);
    await wait(60);
    expect(writes).toEqual(['a\nb\n']);
    const line = 'x'.repeat(199);
    for (let i = 0; i < 400; i++) sink.push(line);
    expect(writes).toHaveLength(2);
    expect(writes[1]!.length).toBeLessThanOrEqual(64 * 1024);
    expect(writes[1]!.length).toBeGreaterThan(60 * 1024);
    sink.flush();
    expect(writes.slice(1).join('')).toBe(`${line}\n`.repeat(400));
  });

  it('keeps every character of lines in any script, and writes a line longer than a batch alone', async () => {
    const writes: string[] = [];
    const sink = new LineSink((bytes) => void writes.push(bytes.toString()));
    sink.push('ünïcødé ✓ 🔑');
    const long = '🔑'.repeat(20_000);
    sink.push(long);
    sink.push('after');
    sink.flush();
    expect(writes).toEqual(['ünïcødé ✓ 🔑\n', `${long}\n`, 'after\n']);
  });

  it('copies ASCII lines byte for byte, in order with the others, and a long one alone', () => {
    const writes: string[] = [];
    const sink = new LineSink((bytes) => void writes.push(bytes.toString()));
    sink.pushAscii('{"a":"\\u00e9"}');
    sink.push('é');
    const long = 'x'.repeat(70_000);
    sink.pushAscii(long);
    sink.pushAscii('after');
    sink.flush();
    expect(writes.join('')).toBe(`{"a":"\\u00e9"}\né\n${long}\nafter\n`);
    expect(writes).toContain(`${long}\n`);
  });

  it('with an unbounded delay, holds lines until its owner flushes or the batch is full, and never sets a timer', async () => {
    const writes: string[] = [];
    const timers = { immediate: 0, timeout: 0 };
    const [setImmediateBefore, setTimeoutBefore] = [globalThis.setImmediate, globalThis.setTimeout];
    const sink = new LineSink((bytes) => void writes.push(bytes.toString()), Infinity);
    try {
      globalThis.setImmediate = ((...args: Parameters<typeof setImmediate>) => (timers.immediate++, setImmediateBefore(...args))) as typeof setImmediate;
      globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => (timers.timeout++, setTimeoutBefore(...args))) as typeof setTimeout;
      sink.pushAscii('a');
      sink.push('b');
    } finally {
      [globalThis.setImmediate, globalThis.setTimeout] = [setImmediateBefore, setTimeoutBefore];
    }
    await wait(30);
    expect([writes, timers]).toEqual([[], { immediate: 0, timeout: 0 }]);
    sink.flush();
    expect(writes).toEqual(['a\nb\n']);
    const line = 'y'.repeat(999);
    for (let i = 0; i < 100; i++) sink.pushAscii(line);
    expect(writes).toHaveLength(2);
    sink.flush();
    expect(writes.slice(1).join('')).toBe(`${line}\n`.repeat(100));
  });

  it('a sink that lends hands over its batch itself, and fills it again after the write', () => {
    const seen: string[] = [];
    const batches = new Set<ArrayBufferLike>();
    const sink = new LineSink((bytes) => {
      seen.push(bytes.toString());
      batches.add(bytes.buffer);
    }, Infinity, true);
    sink.push('a');
    sink.flush();
    sink.push('b');
    sink.flush();
    expect(seen).toEqual(['a\n', 'b\n']);
    expect(batches.size).toBe(1);
  });

  it('flush writes what is pending at once, and nothing when nothing is', () => {
    const writes: string[] = [];
    const sink = new LineSink((bytes) => void writes.push(bytes.toString()), 1000);
    sink.flush();
    sink.push('last');
    sink.flush();
    expect(writes).toEqual(['last\n']);
  });
});
