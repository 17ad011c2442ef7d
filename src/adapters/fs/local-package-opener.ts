import { stat } from 'node:fs/promises';
import { PackageFormatError, SourceNotFoundError } from '../../domain/errors.js';
import type { PackageOpener, PackageSource } from '../../application/ports/package-source.js';
import { DirectoryPackageSource } from './directory-package-source.js';

/** Picks the source for a location on disk: a directory, or a file the archive opener reads (a `.cap` read in place). */
export class LocalPackageOpener implements PackageOpener {
  constructor(private readonly archives: PackageOpener) {}

  async open(location: string): Promise<PackageSource> {
    const stats = await stat(location).catch(() => {
      throw new SourceNotFoundError(`no package at ${location}`);
    });
    if (stats.isDirectory()) return DirectoryPackageSource.open(location);
    // An archive is read by position, from its end: a pipe (`<(curl ...)`, a named pipe with no writer yet) or a device cannot be.
    if (!stats.isFile()) throw new PackageFormatError(`${location} is not a file or a directory (a pipe or a device): save the package to a file first`);
    return this.archives.open(location);
  }
}
