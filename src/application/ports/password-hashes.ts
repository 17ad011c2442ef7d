/**
 * Checks a password against the hash an htpasswd line stores for it: bcrypt
 * (`$2a$`, `$2b$`, `$2y$`), apr1 and md5-crypt (`$apr1$`, `$1$`), `{SHA}`, and
 * crypt(3) for anything else. A stored plain-text password never matches.
 */
export interface PasswordHashes {
  verify(password: string, hash: string): Promise<boolean>;
}
