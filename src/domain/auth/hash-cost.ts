/**
 * The costliest bcrypt hash htpasswd writes (`-C` takes 4 to 17): some 11 s a check here.
 * bcrypt allows up to 31, 16,000 times that, which one hash in a password file a package
 * carries would spend on every login attempt: a costlier hash matches nothing, unchecked.
 */
export const BCRYPT_MAX_COST = 17;

/** SHA-crypt rounds beyond this (some 2 s a check) match nothing, unchecked, for the same reason. */
export const SHA_CRYPT_MAX_ROUNDS = 1_000_000;

/**
 * Roughly how many milliseconds checking a password against a stored hash takes, by its
 * scheme and parameters (measured with the libraries the reactor uses); a hash refused
 * unchecked costs nothing. Only the order matters: the costliest hash of a password file
 * is what an unknown user is checked against, so a wrong name takes as long as a wrong
 * password.
 */
export function estimatedCostMs(hash: string): number {
  const bcrypt = /^\$2[aby]\$(\d\d)\$/.exec(hash);
  if (bcrypt) return Number(bcrypt[1]) > BCRYPT_MAX_COST ? 0 : 2 ** Number(bcrypt[1]) * 0.086;
  const sha = /^\$([56])\$(?:rounds=(\d+)\$)?/.exec(hash);
  if (sha) {
    const rounds = Number(sha[2] ?? 5000);
    return rounds > SHA_CRYPT_MAX_ROUNDS ? 0 : Math.max(rounds, 1000) * (sha[1] === '6' ? 0.0036 : 0.0026);
  }
  if (/^\$(?:apr1|1)\$/.test(hash)) return 2;
  return 0.1;
}

/** The hash that takes longest to check, or undefined for an empty file. */
export function costliestHash(hashes: Iterable<string>): string | undefined {
  let costliest: string | undefined;
  for (const hash of hashes) if (costliest === undefined || estimatedCostMs(hash) > estimatedCostMs(costliest)) costliest = hash;
  return costliest;
}
