import { describe, expect, it } from '@jest/globals';
import { costliestHash, estimatedCostMs } from '../../../src/domain/auth/hash-cost.js';

describe('password hash cost', () => {
  it('orders schemes and parameters by how long a check takes', () => {
    const ordered = ['{SHA}abc', 'abcdefghijklm', '$apr1$salt$x', '$5$salt$x', '$6$salt$x', '$2y$08$x', '$2y$10$x', '$6$rounds=50000$salt$x', '$2y$12$x'];
    const costs = ordered.map(estimatedCostMs);
    expect([...costs].sort((a, b) => a - b)).toEqual(costs);
    expect(costliestHash(ordered.slice().reverse())).toBe('$2y$12$x');
    expect(costliestHash([])).toBeUndefined();
  });

  it('counts a hash refused unchecked (bcrypt over cost 17, SHA-crypt over a million rounds) as free, so no decoy imitates it', () => {
    expect(estimatedCostMs('$2y$18$x')).toBe(0);
    expect(estimatedCostMs('$6$rounds=1000001$salt$x')).toBe(0);
    expect(estimatedCostMs('$2y$17$x')).toBeGreaterThan(estimatedCostMs('$6$rounds=1000000$salt$x'));
    expect(costliestHash(['$2y$31$x', '$2y$05$x', '$5$rounds=999999999$salt$x'])).toBe('$2y$05$x');
  });
});
