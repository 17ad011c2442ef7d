import type { PasswordHashes } from '../../src/application/ports/password-hashes.js';

const SCHEME = '$rev$';

/**
 * Password "hashes" that are the password reversed behind a `$rev$` scheme tag: cheap and
 * legible in a test's password file (`ann:$rev$wp` is ann's password `pw`). Checks are
 * counted and their hashes kept; a decoy is `$decoy$` and the hash it imitates. Like the
 * real hashes, a stored plain-text password never matches. Kept honest by
 * test/contracts/password-hashes.contract.ts.
 */
export class ReversedPasswordHashes implements PasswordHashes {
  calls = 0;
  readonly checked: string[] = [];

  static hash(password: string): string {
    return SCHEME + [...password].reverse().join('');
  }

  async verify(password: string, hash: string): Promise<boolean> {
    this.calls++;
    this.checked.push(hash);
    return hash.startsWith(SCHEME) && ReversedPasswordHashes.hash(password) === hash;
  }

  async decoyLike(like: string): Promise<string> {
    return `$decoy$${like}`;
  }
}
