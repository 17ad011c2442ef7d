import { UnsafeEntryError } from '../../domain/errors.js';
import { compareChecksums, isCoveredByChecksums, normalizeSecurity } from '../../domain/integrity/security.js';
import { SECURITY_FILE, unsafePathReason } from '../../domain/package/package-paths.js';
import { assertIntact } from '../integrity/digest-entries.js';
import { assertPackage, readOptional } from '../package/package-reader.js';
import type { DirectoryWriter } from '../ports/directory-writer.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener } from '../ports/package-source.js';
import { tap } from '../shared/tap.js';

export interface UnpackRequest {
  archive: string;
  destination: string;
  force: boolean;
}

/**
 * Extracts a package. Every entry name is checked before anything is written, the
 * files are verified against security.json as they are written, and the destination
 * appears only once everything has been written and verified.
 */
export class UnpackPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly writer: DirectoryWriter,
    private readonly hasher: Hasher,
  ) {}

  async execute(request: UnpackRequest): Promise<{ destination: string; files: number }> {
    const source = await this.opener.open(request.archive);
    try {
      // A package command: an archive of something else (or of a folder holding the package) is refused, as info and test refuse it.
      assertPackage(source);
      const entries = source.entries();
      for (const { path } of entries) {
        const reason = unsafePathReason(path);
        if (reason) throw new UnsafeEntryError(path, reason);
      }
      const security = await readOptional(source, SECURITY_FILE, normalizeSecurity);
      const draft = await this.writer.create(request.destination, { replace: request.force });
      try {
        const digests = new Map<string, string>();
        for (const { path } of entries) {
          const hash = this.hasher.createSha256();
          await draft.write(path, tap(source.stream(path), (chunk) => hash.update(chunk)));
          if (isCoveredByChecksums(path)) digests.set(path, hash.digest());
        }
        if (security) assertIntact(source.location, compareChecksums(security.checksums, digests));
        return { destination: await draft.commit(), files: entries.length };
      } catch (error) {
        await draft.discard();
        throw error;
      }
    } finally {
      await source.close();
    }
  }
}
