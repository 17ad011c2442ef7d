import type { Clock } from '../../src/application/ports/clock.js';

/**
 * A clock that moves only when told to, and only forward. `millis` is the same time as a
 * number, for code that takes `() => number`. Kept honest by test/contracts/clock.contract.ts.
 */
export class FixedClock implements Clock {
  private time: number;

  constructor(start: Date | number = Date.UTC(2025, 0, 1)) {
    this.time = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    // A new Date each time: a caller that changes the one it got does not move the clock.
    return new Date(this.time);
  }

  readonly millis = (): number => this.time;

  advance(milliseconds: number): this {
    if (!(milliseconds >= 0)) throw new RangeError(`a clock moves forward only, not by ${milliseconds} ms`);
    this.time += milliseconds;
    return this;
  }
}
