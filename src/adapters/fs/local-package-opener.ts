import { stat } from 'node:fs/promises';
import { SourceNotFoundError } from '../../domain/errors.js';
import type { PackageOpener, PackageSource } from '../../application/ports/package-source.js';
import { DirectoryPackageSource } from './directory-package-source.js';

/** Picks the source for a location on disk: a directory, or a file the archive opener reads (a `.cap` read in place). */
export class LocalPackageOpener implements PackageOpener {
  constructor(private readonly archives: PackageOpener) {}

  async open(location: string): Promise<PackageSource> {
    const stats = await stat(location).catch(() => {
      throw new SourceNotFoundError(`no package at ${location}`);
    });
    return stats.isDirectory() ? DirectoryPackageSource.open(location) : this.archives.open(location);
  }
}
