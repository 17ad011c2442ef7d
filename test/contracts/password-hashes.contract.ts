import { describe, expect, it } from '@jest/globals';
import type { PasswordHashes } from '../../src/application/ports/password-hashes.js';
import { eachSubject, type Subject } from './subject.js';

export interface PasswordHashesSubject {
  hashes: PasswordHashes;
  /** The hash a password file would hold for this password, in the scheme under test. */
  hash(password: string): Promise<string>;
}

/** The promises of the PasswordHashes port (src/application/ports/password-hashes.ts). */
export function describePasswordHashesContract(name: string, makeSubject: () => Promise<Subject<PasswordHashesSubject>> | Subject<PasswordHashesSubject>): void {
  describe(`${name} keeps the PasswordHashes contract`, () => {
    const subject = eachSubject(makeSubject);

    it('matches the password of a hash, and no other', async () => {
      const hash = await subject().hash('correct horse');
      expect(await subject().hashes.verify('correct horse', hash)).toBe(true);
      for (const other of ['correct hors', 'Correct horse', 'correct horse ', '']) expect(await subject().hashes.verify(other, hash)).toBe(false);
    });

    it('never matches a stored plain-text password, a palindrome included', async () => {
      for (const password of ['secret', 'abba', 'x']) expect(await subject().hashes.verify(password, password)).toBe(false);
    });

    it('makes a decoy unlike the hash it imitates, which the imitated hash\'s password does not match', async () => {
      const like = await subject().hash('correct horse');
      const decoy = await subject().hashes.decoyLike(like);
      expect(decoy).toEqual(expect.any(String));
      expect(decoy).not.toBe(like);
      expect(decoy).not.toContain(':');
      expect(await subject().hashes.verify('correct horse', decoy)).toBe(false);
    });
  });
}
