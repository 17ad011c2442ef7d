import { describe, expect, it } from '@jest/globals';
import { ExpiringIds } from '../../../src/application/auth/expiring-ids.js';

describe('ExpiringIds (ended sessions and used login states held in memory)', () => {
  it('forgets ids once their time has passed, so a long-running reactor does not keep every logout', () => {
    let now = 0;
    const ids = new ExpiringIds(() => now);
    for (let i = 0; i < 1000; i++) ids.add(`old-${i}`, 100);
    expect(ids.has('old-0')).toBe(true);
    now = 200;
    for (let i = 0; i < 1000; i++) ids.add(`new-${i}`, 1000);
    // The old ones went in a sweep; what has not expired stays.
    expect(ids.size).toBeLessThanOrEqual(1000);
    expect(ids.has('old-0')).toBe(false);
    expect(ids.has('new-0')).toBe(true);
    expect(ids.has('new-999')).toBe(true);
  });

  it('keeps an id until the latest time it was given, and never holds much more than twice what has not expired', () => {
    let now = 0;
    const ids = new ExpiringIds(() => now);
    ids.add('a', 50);
    ids.add('a', 10);
    now = 30;
    // Enough ids already expired to make the set sweep itself several times.
    for (let i = 0; i < 500; i++) ids.add(`x${i}`, 20);
    expect(ids.has('a')).toBe(true);
    expect(ids.size).toBeLessThan(130);
    for (let round = 1; round <= 100; round++) {
      now = 100 + round * 10;
      for (let i = 0; i < 20; i++) ids.add(`r${round}-${i}`, now + 5);
      expect(ids.size).toBeLessThanOrEqual(64 + 20);
    }
  });
});
