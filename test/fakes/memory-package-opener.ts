import { SourceNotFoundError } from '../../src/domain/errors.js';
import { MemoryPackageSource } from './memory-package-source.js';
import type { PackageOpener, PackageSource } from '../../src/application/ports/package-source.js';

/** Opens packages held in memory by name. Kept honest by test/contracts/package-source.contract.ts. */
export class MemoryOpener implements PackageOpener {
  private readonly packages = new Map<string, Record<string, string | Uint8Array>>();

  add(location: string, files: Record<string, string | Uint8Array>): this {
    this.packages.set(location, files);
    return this;
  }

  async open(location: string): Promise<PackageSource> {
    const files = this.packages.get(location);
    if (!files) throw new SourceNotFoundError(`no package at ${location}`);
    return new MemoryPackageSource(files, location);
  }
}
