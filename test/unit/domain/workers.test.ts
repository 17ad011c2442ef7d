import { describe, expect, it } from '@jest/globals';
import { UsageError } from '../../../src/domain/errors.js';
import { parseWorkers } from '../../../src/domain/serving/workers.js';

describe('--workers', () => {
  it('takes a whole number of processes, or auto for one per core', () => {
    expect(parseWorkers('1', 8)).toBe(1);
    expect(parseWorkers('3', 8)).toBe(3);
    expect(parseWorkers(' 2 ', 8)).toBe(2);
    expect(parseWorkers('auto', 8)).toBe(8);
    expect(parseWorkers('auto', 0)).toBe(1);
  });

  it.each(['0', 'x', '-1', '1.5', '', '2e3', '257', 'Auto'])('refuses %j with a UsageError naming the option', (given) => {
    expect(() => parseWorkers(given, 4)).toThrow(UsageError);
    expect(() => parseWorkers(given, 4)).toThrow(/--workers/);
  });
});
