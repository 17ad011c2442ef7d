import { describe, expect, it } from '@jest/globals';
import type { SessionRevocationStore } from '../../src/application/ports/session-revocations.js';
import { eachSubject, type Subject } from './subject.js';

export interface SessionRevocationsSubject {
  store: SessionRevocationStore;
  /** Two workdirs the store may keep revocations in. */
  workdirs: [string, string];
  /** Now, as the store's clock tells it (ms). */
  now: number;
}

const HOUR = 3600 * 1000;

/** The promises of the SessionRevocations ports (src/application/ports/session-revocations.ts). */
export function describeSessionRevocationsContract(name: string, makeSubject: () => Promise<Subject<SessionRevocationsSubject>> | Subject<SessionRevocationsSubject>): void {
  describe(`${name} keeps the SessionRevocations contract`, () => {
    const subject = eachSubject(makeSubject);

    it('has nothing revoked at first, then what was revoked and nothing else', async () => {
      const revocations = await subject().store.open(subject().workdirs[0]);
      expect(revocations.has('session-a')).toBe(false);
      await revocations.revoke('session-a', subject().now + HOUR);
      expect(revocations.has('session-a')).toBe(true);
      expect(revocations.has('session-b')).toBe(false);
    });

    it('is durable in a workdir: opened again, it still has the revocation; another workdir does not', async () => {
      const first = await subject().store.open(subject().workdirs[0]);
      await first.revoke('session-a', subject().now + HOUR);
      expect((await subject().store.open(subject().workdirs[0])).has('session-a')).toBe(true);
      expect((await subject().store.open(subject().workdirs[1])).has('session-a')).toBe(false);
    });

    it('lets one claim of an id win, of claims made together or after a revocation, and keeps it when opened again', async () => {
      const revocations = await subject().store.open(subject().workdirs[0]);
      const verdicts = await Promise.all([1, 2, 3].map(() => revocations.claim('state-a', subject().now + HOUR)));
      expect(verdicts.filter(Boolean)).toHaveLength(1);
      expect(revocations.has('state-a')).toBe(true);
      expect(await (await subject().store.open(subject().workdirs[0])).claim('state-a', subject().now + HOUR)).toBe(false);
      await revocations.revoke('session-a', subject().now + HOUR);
      expect(await revocations.claim('session-a', subject().now + HOUR)).toBe(false);
      expect(await (await subject().store.open(subject().workdirs[1])).claim('state-a', subject().now + HOUR)).toBe(true);
    });

    it('keeps revocations in memory only without a workdir', async () => {
      const first = await subject().store.open(undefined);
      await first.revoke('session-a', subject().now + HOUR);
      expect(first.has('session-a')).toBe(true);
      expect((await subject().store.open(undefined)).has('session-a')).toBe(false);
    });

    it('keeps a revocation until the session would have expired, whatever is revoked after it', async () => {
      const revocations = await subject().store.open(subject().workdirs[0]);
      await revocations.revoke('session-a', subject().now + HOUR);
      for (let i = 0; i < 5; i++) await revocations.revoke(`session-${i}`, subject().now + 2 * HOUR);
      expect(revocations.has('session-a')).toBe(true);
      expect((await subject().store.open(subject().workdirs[0])).has('session-a')).toBe(true);
    });
  });
}
