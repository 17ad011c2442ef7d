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
});
