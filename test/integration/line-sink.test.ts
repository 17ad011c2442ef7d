import { describe, expect, it } from '@jest/globals';
import { LineSink } from '../../src/adapters/http/line-sink.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LineSink', () => {
  it('writes the lines of one turn of the event loop in one write', async () => {
    const writes: string[] = [];
    const sink = new LineSink((text) => void writes.push(text));
    sink.push('a');
    sink.push('b');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['a\nb\n']);
  });

  it('with a delay, gathers lines across turns, and never holds more than 512', async () => {
    const writes: string[] = [];
    const sink = new LineSink((text) => void writes.push(text), 30);
    sink.push('a');
    await turn();
    sink.push('b');
    expect(writes).toEqual([]);
    await wait(60);
    expect(writes).toEqual(['a\nb\n']);
    for (let i = 0; i < 512; i++) sink.push(String(i));
    expect(writes).toHaveLength(2);
    expect(writes[1]!.split('\n')).toHaveLength(513);
  });

  it('flush writes what is pending at once, and nothing when nothing is', () => {
    const writes: string[] = [];
    const sink = new LineSink((text) => void writes.push(text), 1000);
    sink.flush();
    sink.push('last');
    sink.flush();
    expect(writes).toEqual(['last\n']);
  });
});
