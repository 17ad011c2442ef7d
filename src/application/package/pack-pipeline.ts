import { UnsafeEntryError } from '../../domain/errors.js';
import { isCoveredByChecksums, securityDocument, type DigitalSignatures } from '../../domain/integrity/security.js';
import { isCompressedMedia } from '../../domain/package/media-types.js';
import { SECURITY_FILE, comparePaths, unsafePathReason } from '../../domain/package/package-paths.js';
import type { ArchiveWriter } from '../ports/archive-writer.js';
import type { Hasher } from '../ports/hasher.js';
import { tap } from '../shared/tap.js';
import { toJsonBytes } from './package-reader.js';

export interface PackFile {
  path: string;
  /** Bytes, or a way to stream them when the entry's turn comes. */
  data: Uint8Array | (() => AsyncIterable<Uint8Array>);
}

export interface PackTarget {
  directory: string;
  fileName: string;
  overwrite: boolean;
}

export interface PackResult {
  path: string;
  size: number;
  /** Package-relative path -> SHA-256, as written to security.json. */
  checksums: Record<string, string>;
  entries: number;
}

/**
 * The one pack pipeline: CLI pack, reactor save, sign and push all write archives here,
 * so checksums, entry order and security.json are produced in exactly one place.
 * Entries go in sorted path order, each read once and hashed as it is compressed;
 * security.json, derived from all of them, is the last entry.
 */
export class PackPipeline {
  constructor(
    private readonly writer: ArchiveWriter,
    private readonly hasher: Hasher,
  ) {}

  async write(files: readonly PackFile[], target: PackTarget, signatures?: DigitalSignatures): Promise<PackResult> {
    const ordered = files.filter((file) => file.path !== SECURITY_FILE).sort((a, b) => comparePaths(a.path, b.path));
    for (const file of ordered) {
      const reason = unsafePathReason(file.path);
      if (reason) throw new UnsafeEntryError(file.path, reason);
    }
    const sink = await this.writer.create(target.directory, target.fileName, { overwrite: target.overwrite });
    try {
      const checksums: Record<string, string> = {};
      for (const file of ordered) {
        const store = isCompressedMedia(file.path);
        if (file.data instanceof Uint8Array) {
          await sink.add(file.path, file.data, { store });
          checksums[file.path] = this.hasher.sha256(file.data);
        } else {
          const hash = this.hasher.createSha256();
          await sink.add(file.path, tap(file.data(), (chunk) => hash.update(chunk)), { store });
          checksums[file.path] = hash.digest();
        }
      }
      const covered = Object.fromEntries(Object.entries(checksums).filter(([path]) => isCoveredByChecksums(path)));
      await sink.add(SECURITY_FILE, toJsonBytes(securityDocument({ checksums: covered, ...(signatures ? { digitalSignatures: signatures } : {}) })), { store: false });
      const { path, size } = await sink.commit();
      return { path, size, checksums: covered, entries: ordered.length + 1 };
    } catch (error) {
      await sink.abort();
      throw error;
    }
  }
}
