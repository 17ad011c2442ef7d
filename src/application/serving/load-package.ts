import { ConfigValidationError } from '../../domain/errors.js';
import { compareChecksums } from '../../domain/integrity/security.js';
import { parseDocument } from '../../domain/package/documents.js';
import { isContentPath } from '../../domain/package/package-paths.js';
import { assertIntact, coveredPaths, digestEntries, type ChunkObserver } from '../integrity/digest-entries.js';
import { readPackage, readText } from '../package/package-reader.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';
import { concatBytes } from '../shared/bytes.js';
import type { ByteBudget } from './byte-budget.js';
import { MEMORY_FILE_LIMIT, ServedPackage, packageLayers, tombstoneFiles, type ServeOptions } from './served-package.js';

/**
 * Loads a package for serving: reads its configuration, verifies it against
 * security.json before anything is served (IntegrityError naming the files), and
 * builds its layers. Small files read during verification stay in memory, so the
 * verification pass also warms the cache.
 */
export class LoadPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly hasher: Hasher,
    private readonly budget: ByteBudget,
  ) {}

  async execute(location: string, options: ServeOptions): Promise<ServedPackage> {
    const source = await this.opener.open(location);
    try {
      return await this.load(source, options);
    } catch (error) {
      await source.close();
      throw error;
    }
  }

  async load(source: PackageSource, options: ServeOptions): Promise<ServedPackage> {
    const model = await readPackage(source);
    const preloaded = new Map<string, Uint8Array>();
    let digests = new Map<string, string>();
    if (model.security) {
      const sizes = new Map(source.entries().map((entry) => [entry.path, entry.size]));
      const keep = (path: string): ChunkObserver | undefined => {
        const size = sizes.get(path) ?? 0;
        if (!isContentPath(path) || size > MEMORY_FILE_LIMIT) return undefined;
        const chunks: Uint8Array[] = [];
        return {
          update: (chunk) => chunks.push(chunk),
          end: () => {
            if (this.budget.take(size)) preloaded.set(path, concatBytes(chunks, size));
          },
        };
      };
      digests = await digestEntries(source, this.hasher, coveredPaths(source), keep);
      assertIntact(source.location, compareChecksums(model.security.checksums, digests));
    }
    const tombstones = new Map<string, string[]>();
    for (const file of tombstoneFiles(model)) {
      if (!source.has(file)) continue;
      const list = parseDocument(await readText(source, file), file);
      if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) throw new ConfigValidationError(file, ['must be a JSON array of content-relative paths']);
      tombstones.set(file.slice(0, file.lastIndexOf('/') + 1), list as string[]);
    }
    return new ServedPackage(source, model, this.hasher, this.budget, options, packageLayers(source, model, tombstones), preloaded, digests);
  }
}
