import { stat } from 'node:fs/promises';
import { SourceNotFoundError } from '../domain/errors.js';
import type { PackageOpener, PackageSource } from '../application/ports/package-source.js';
import { ZipPackageSource } from '../adapters/archive/zip-package-source.js';
import { DirectoryPackageSource } from '../adapters/fs/directory-package-source.js';
import { archiveLimitsFrom } from '../domain/package/archive-limits.js';

/** Picks the adapter for a location on disk: a directory, or a `.cap` read in place. */
export class LocalPackageOpener implements PackageOpener {
  async open(location: string): Promise<PackageSource> {
    const stats = await stat(location).catch(() => {
      throw new SourceNotFoundError(`no package at ${location}`);
    });
    // Read at each open: the CLI's --max-* options set these for the run (and for its worker processes).
    return stats.isDirectory() ? DirectoryPackageSource.open(location) : ZipPackageSource.open(location, archiveLimitsFrom(process.env));
  }
}
