import { describe, expect, it } from '@jest/globals';
import type { Clock } from '../../src/application/ports/clock.js';
import { eachSubject, type Subject } from './subject.js';

export interface ClockSubject {
  clock: Clock;
  /** Lets this much time pass, as the clock knows time: waiting, or moving it on. */
  pass(milliseconds: number): Promise<void>;
}

/** What the reactor relies on from the Clock port (src/application/ports/clock.ts): uptime and check times. */
export function describeClockContract(name: string, makeSubject: () => Promise<Subject<ClockSubject>> | Subject<ClockSubject>): void {
  describe(`${name} keeps the Clock contract`, () => {
    const subject = eachSubject(makeSubject);

    it('tells a valid time, which prints as an ISO timestamp', () => {
      const now = subject().clock.now();
      expect(now).toBeInstanceOf(Date);
      expect(Number.isNaN(now.getTime())).toBe(false);
      expect(now.toISOString()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('never goes back, and moves on as time passes', async () => {
      const first = subject().clock.now().getTime();
      expect(subject().clock.now().getTime()).toBeGreaterThanOrEqual(first);
      await subject().pass(25);
      const later = subject().clock.now().getTime();
      // Timers may fire a millisecond early by the wall clock's reckoning.
      expect(later - first).toBeGreaterThanOrEqual(24);
      expect(later - first).toBeLessThan(5_000);
    });

    it('gives each caller its own Date: changing one does not move the clock', () => {
      const reading = subject().clock.now();
      const before = reading.getTime();
      reading.setFullYear(1999);
      expect(subject().clock.now().getTime()).toBeGreaterThanOrEqual(before);
      expect(subject().clock.now()).not.toBe(subject().clock.now());
    });
  });
}
