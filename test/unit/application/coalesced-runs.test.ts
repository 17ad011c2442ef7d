import { describe, expect, it } from '@jest/globals';
import { CoalescedRuns } from '../../../src/application/serving/coalesced-runs.js';

/** Work that finishes when the test says, numbered in the order it began. */
function scriptedWork() {
  const began: number[] = [];
  const finish: Array<(value: number) => void> = [];
  const fail: Array<(error: Error) => void> = [];
  const work = () =>
    new Promise<number>((resolve, reject) => {
      began.push(began.length + 1);
      finish.push(resolve);
      fail.push(reject);
    });
  return { began, finish, fail, work };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('CoalescedRuns', () => {
  it('runs once for everyone who asks before it begins, once more for everyone who asks while it runs', async () => {
    const runs = new CoalescedRuns<string, number>();
    const { began, finish, work } = scriptedWork();
    const first = [runs.run('a', work), runs.run('a', work)];
    await turn();
    expect(began).toEqual([1]);
    const second = [runs.run('a', work), runs.run('a', work), runs.run('a', work)];
    await turn();
    expect(began).toEqual([1]);
    expect(runs.busy).toBe(true);
    finish[0]!(10);
    expect(await Promise.all(first)).toEqual([10, 10]);
    await turn();
    expect(began).toEqual([1, 2]);
    finish[1]!(20);
    expect(await Promise.all(second)).toEqual([20, 20, 20]);
    await turn();
    expect(runs.busy).toBe(false);
  });

  it('keeps keys apart, goes on after a run that failed, and settles all() without failing', async () => {
    const runs = new CoalescedRuns<string, number>();
    const { began, finish, fail, work } = scriptedWork();
    const a = runs.run('a', work);
    const b = runs.run('b', work);
    await turn();
    expect(began).toEqual([1, 2]);
    const after = runs.run('a', work);
    const all = runs.all();
    fail[0]!(new Error('no'));
    await expect(a).rejects.toThrow('no');
    await turn();
    expect(began).toEqual([1, 2, 3]);
    finish[1]!(2);
    finish[2]!(3);
    expect(await b).toBe(2);
    expect(await after).toBe(3);
    await expect(all).resolves.toBeUndefined();
  });
});
