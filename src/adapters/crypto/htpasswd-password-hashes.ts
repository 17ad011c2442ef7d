import aprMd5 from 'apache-md5';
import crypt from 'apache-crypt';
import bcrypt from 'bcryptjs';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { encrypt as encryptShaCrypt, verify as verifyShaCrypt } from 'unixcrypt';
import type { PasswordHashes } from '../../application/ports/password-hashes.js';
import { BCRYPT_MAX_COST, SHA_CRYPT_MAX_ROUNDS } from '../../domain/auth/hash-cost.js';

const BCRYPT = /^\$2[aby]\$(\d\d)\$[./0-9A-Za-z]{53}$/;
const SHA_CRYPT = /^\$([56])\$(rounds=(\d{1,9})\$)?[^$]{0,16}\$[./0-9A-Za-z]+$/;
const MD5_CRYPT = /^\$(?:apr1|1)\$/;
const SHA1 = '{SHA}';
// Anything else must look like traditional DES crypt; otherwise it may be a plain-text
// password, which must never be accepted.
const DES_CRYPT = /^[./0-9A-Za-z]{13}$/;

/** The htpasswd hash formats, as Apache's htpasswd and `openssl passwd` write them (SHA-crypt through unixcrypt, pure JS: no platform crypt(3) is needed). */
export class HtpasswdPasswordHashes implements PasswordHashes {
  async verify(password: string, hash: string): Promise<boolean> {
    const bcryptHash = BCRYPT.exec(hash);
    if (bcryptHash) return Number(bcryptHash[1]) <= BCRYPT_MAX_COST && bcryptMatches(password, hash);
    if (SHA_CRYPT.test(hash)) return shaCryptMatches(password, hash);
    if (MD5_CRYPT.test(hash)) return sameText(aprMd5(utf8Bytes(password), hash), hash);
    if (hash.startsWith(SHA1)) return sameText(SHA1 + createHash('sha1').update(password, 'utf8').digest('base64'), hash);
    if (DES_CRYPT.test(hash)) return sameText(crypt(utf8Bytes(password), hash), hash);
    return false;
  }

  async decoyLike(like: string): Promise<string> {
    const password = randomBytes(18).toString('base64');
    const bcryptCost = /^\$2[aby]\$(\d\d)\$/.exec(like);
    if (bcryptCost) return bcrypt.hash(password, Math.min(Math.max(Number(bcryptCost[1]), 4), BCRYPT_MAX_COST));
    const sha = SHA_CRYPT.exec(like);
    if (sha) return encryptShaCrypt(password, `$${sha[1]}$${sha[3] === undefined ? '' : `rounds=${Math.min(Number(sha[3]), SHA_CRYPT_MAX_ROUNDS)}$`}${randomBytes(12).toString('base64').replace(/[^./0-9A-Za-z]/g, '.').slice(0, 16)}`);
    if (MD5_CRYPT.test(like)) return aprMd5(password, `$apr1$${randomBytes(6).toString('hex').slice(0, 8)}$`);
    return `${SHA1}${createHash('sha1').update(password).digest('base64')}`;
  }
}

/** unixcrypt (pure JS) hashes the UTF-8 bytes of the password, as openssl and htpasswd do. */
async function shaCryptMatches(password: string, hash: string): Promise<boolean> {
  if (Number(SHA_CRYPT.exec(hash)?.[3] ?? 0) > SHA_CRYPT_MAX_ROUNDS) return false;
  try {
    return verifyShaCrypt(password, hash);
  } catch {
    return false;
  }
}

async function bcryptMatches(password: string, hash: string): Promise<boolean> {
  try {
    return await bcrypt.compare(password, hash);
  } catch {
    // bcryptjs rejects what it cannot parse (a cost outside 4-31, say): not a match.
    return false;
  }
}

/**
 * apache-md5 and apache-crypt hash a string's char codes as bytes (one byte each), while
 * htpasswd and openssl hash the UTF-8 bytes of what was typed: hand them those bytes.
 */
function utf8Bytes(password: string): string {
  return Buffer.from(password, 'utf8').toString('latin1');
}

function sameText(computed: string, stored: string): boolean {
  const a = Buffer.from(computed, 'utf8');
  const b = Buffer.from(stored, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
