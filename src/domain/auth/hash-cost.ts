/**
 * Roughly how many milliseconds checking a password against a stored hash takes, by its
 * scheme and parameters (measured with the libraries the reactor uses). Only the order
 * matters: the costliest hash of a password file is what an unknown user is checked
 * against, so a wrong name takes as long as a wrong password.
 */
export function estimatedCostMs(hash: string): number {
  const bcrypt = /^\$2[aby]\$(\d\d)\$/.exec(hash);
  if (bcrypt) return 2 ** Number(bcrypt[1]) * 0.086;
  const sha = /^\$([56])\$(?:rounds=(\d+)\$)?/.exec(hash);
  if (sha) return Math.min(Math.max(Number(sha[2] ?? 5000), 1000), 999_999_999) * (sha[1] === '6' ? 0.0036 : 0.0026);
  if (/^\$(?:apr1|1)\$/.test(hash)) return 2;
  return 0.1;
}

/** The hash that takes longest to check, or undefined for an empty file. */
export function costliestHash(hashes: Iterable<string>): string | undefined {
  let costliest: string | undefined;
  for (const hash of hashes) if (costliest === undefined || estimatedCostMs(hash) > estimatedCostMs(costliest)) costliest = hash;
  return costliest;
}
