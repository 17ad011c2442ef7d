import { IntegrityError } from '../../domain/errors.js';
import { compareChecksums, describeIntegrity, isCoveredByChecksums, isIntact, type IntegrityReport, type Security } from '../../domain/integrity/security.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageSource } from '../ports/package-source.js';

/** Sees an entry's bytes as they are hashed, so one read serves several checks. */
export interface ChunkObserver {
  update(chunk: Uint8Array): void;
  end(): void;
}

/**
 * SHA-256 of each entry, several entries in flight at once: inflating runs on the
 * thread pool while hashing runs here, so both cores work.
 */
export async function digestEntries(
  source: PackageSource,
  hasher: Hasher,
  paths: readonly string[],
  observe?: (path: string) => ChunkObserver | undefined,
  concurrency = 8,
): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const hash = hasher.createSha256();
      const observer = observe?.(path);
      for await (const chunk of source.stream(path)) {
        hash.update(chunk);
        observer?.update(chunk);
      }
      observer?.end();
      digests.set(path, hash.digest());
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, paths.length) }, worker));
  return new Map([...paths].filter((p) => digests.has(p)).map((p) => [p, digests.get(p)!]));
}

export function coveredPaths(source: PackageSource): string[] {
  return source.entries().map((entry) => entry.path).filter(isCoveredByChecksums);
}

/** Re-hashes every covered file and compares with security.json. */
export async function checkIntegrity(source: PackageSource, hasher: Hasher, security: Security): Promise<IntegrityReport> {
  return compareChecksums(security.checksums, await digestEntries(source, hasher, coveredPaths(source)));
}

export function assertIntact(location: string, report: IntegrityReport): void {
  if (!isIntact(report)) throw new IntegrityError(`${location} failed its integrity check: ${describeIntegrity(report).join('; ')}`, report);
}
