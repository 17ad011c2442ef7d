/**
 * Checks a password against the hash an htpasswd line stores for it: bcrypt
 * (`$2a$`, `$2b$`, `$2y$`), SHA-crypt (`$5$`, `$6$`, as `htpasswd -2/-5` and `openssl
 * passwd -5/-6` write), apr1 and md5-crypt (`$apr1$`, `$1$`), `{SHA}`, and crypt(3) for
 * anything else. A stored plain-text password never matches.
 */
export interface PasswordHashes {
  verify(password: string, hash: string): Promise<boolean>;
  /** A hash of a random password with the scheme and cost of `like`: checking it takes as long as checking `like`. */
  decoyLike(like: string): Promise<string>;
}
