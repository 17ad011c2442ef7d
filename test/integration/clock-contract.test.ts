import { setTimeout as sleep } from 'node:timers/promises';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { describeClockContract } from '../contracts/clock.contract.js';
import { FixedClock } from '../fakes/fixed-clock.js';

describeClockContract('FixedClock (fake)', () => {
  const clock = new FixedClock();
  return { clock, pass: async (milliseconds) => void clock.advance(milliseconds) };
});

describeClockContract('SystemClock', () => ({ clock: new SystemClock(), pass: (milliseconds) => sleep(milliseconds) }));
