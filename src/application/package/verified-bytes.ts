import type { Hasher } from '../ports/hasher.js';

/**
 * Passes bytes through while hashing and counting them, and throws at the end (or as
 * soon as there are too many) when they are not the expected ones. Writers that commit
 * only once a stream has ended cleanly (FileWriter, the store) so never keep bytes that
 * failed the check.
 */
export async function* verifiedBytes(
  data: AsyncIterable<Uint8Array>,
  expected: { sha256: string; size?: number },
  hasher: Hasher,
  mismatch: (found: { sha256?: string; size: number }) => Error,
): AsyncIterable<Uint8Array> {
  const hash = hasher.createSha256();
  let size = 0;
  for await (const chunk of data) {
    size += chunk.length;
    if (expected.size !== undefined && size > expected.size) throw mismatch({ size });
    hash.update(chunk);
    yield chunk;
  }
  const sha256 = hash.digest();
  if (sha256 !== expected.sha256.toLowerCase() || (expected.size !== undefined && size !== expected.size)) throw mismatch({ sha256, size });
}

/** SHA-256 and size of a stream, read once. */
export async function digestOf(data: AsyncIterable<Uint8Array>, hasher: Hasher): Promise<{ sha256: string; size: number }> {
  const hash = hasher.createSha256();
  let size = 0;
  for await (const chunk of data) {
    size += chunk.length;
    hash.update(chunk);
  }
  return { sha256: hash.digest(), size };
}
