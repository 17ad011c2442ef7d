import type { PackageStore, PackageStores, StoredPackage } from '../../src/application/ports/package-store.js';
import type { StoreIndex } from '../../src/domain/dependencies/store-index.js';
import { compareVersions } from '../../src/domain/package/version-range.js';
import { MemoryStoreDirectory } from './memory-store-directory.js';

/**
 * A package store in memory, as dependency resolution and install see one: a
 * MemoryStoreDirectory, with each file's GUID and version taken from its install
 * (where the real store reads them from the file's metadata.json). Every directory
 * opens this one store. Kept honest by test/contracts/package-store.contract.ts.
 */
export class MemoryPackageStore implements PackageStore, PackageStores {
  readonly directory: MemoryStoreDirectory;
  /** File path -> what the file holds. */
  private readonly held = new Map<string, { guid: string; version: string }>();

  constructor(location = '/stores/memory') {
    this.directory = new MemoryStoreDirectory(location);
  }

  get location(): string {
    return this.directory.location;
  }

  open(): PackageStore {
    return this;
  }

  async versions(guid: string): Promise<StoredPackage[]> {
    return (await this.directory.files())
      .flatMap(({ path }) => {
        const held = this.held.get(path);
        return held?.guid === guid ? [{ version: held.version, path }] : [];
      })
      .sort((a, b) => compareVersions(a.version, b.version));
  }

  async install(entry: { guid: string; name: string; version: string }, data: AsyncIterable<Uint8Array>, check?: (path: string) => Promise<void>): Promise<StoredPackage> {
    const stored = await this.directory.install(entry, data, check);
    this.held.set(stored.path, { guid: entry.guid, version: entry.version });
    return stored;
  }

  index(): Promise<StoreIndex> {
    return this.directory.index();
  }

  reindex(guid: string, file: string | undefined): Promise<void> {
    return this.directory.reindex(guid, file);
  }

  /** The versions installed, oldest first, for assertions. */
  async installed(guid: string): Promise<string[]> {
    return (await this.versions(guid)).map(({ version }) => version);
  }
}
