import type { PackageOpener, PackageSource } from '../../application/ports/package-source.js';
import { archiveLimitsFrom } from '../../domain/package/archive-limits.js';
import { ZipPackageSource } from './zip-package-source.js';

/** Opens a `.cap` in place, within the PKG_MAX_* archive limits. */
export class ZipPackageOpener implements PackageOpener {
  open(location: string): Promise<PackageSource> {
    // Read at each open: the CLI's --max-* options set these for the run (and for its worker processes).
    return ZipPackageSource.open(location, archiveLimitsFrom(process.env));
  }
}
