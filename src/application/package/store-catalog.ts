import { compareVersions } from '../../domain/package/version-range.js';
import type { PackageStore, PackageStores, StoredPackage } from '../ports/package-store.js';
import type { PackageOpener } from '../ports/package-source.js';
import { readMetadata } from './package-reader.js';

/**
 * SPEC.md: a store is `<name>-<version>.cap` files "plus an optional index.json". The
 * index is a hint: a `.cap` it does not name is still found, by the GUID in its own
 * metadata.json. What each file holds is read once and kept by file identity, so a big
 * store is not read again on every lookup; a file that cannot be read is passed over.
 */
export class StoreCatalog implements PackageStores {
  /** File identity -> the GUID its metadata names (undefined: unreadable, or no GUID). */
  private readonly guids = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly stores: PackageStores,
    private readonly opener: PackageOpener,
  ) {}

  open(directory: string): PackageStore {
    const store = this.stores.open(directory);
    return {
      location: store.location,
      index: () => store.index(),
      archives: () => store.archives(),
      install: (entry, data, check) => store.install(entry, data, check),
      versions: (guid) => this.versions(store, guid),
    };
  }

  private async versions(store: PackageStore, guid: string): Promise<StoredPackage[]> {
    // An index that cannot be read is no reason to miss the files beside it.
    const hinted = await store.versions(guid).catch(() => [] as StoredPackage[]);
    const found = new Map(hinted.map((stored) => [stored.path, stored]));
    for (const archive of await store.archives()) {
      if (found.has(archive.path)) continue;
      if ((await this.guidOf(archive.path, archive.identity)) === guid) found.set(archive.path, { version: archive.version, path: archive.path });
    }
    return [...found.values()].sort((a, b) => compareVersions(a.version, b.version));
  }

  private guidOf(path: string, identity: string): Promise<string | undefined> {
    let guid = this.guids.get(identity);
    if (!guid) {
      guid = this.read(path);
      this.guids.set(identity, guid);
    }
    return guid;
  }

  private async read(path: string): Promise<string | undefined> {
    try {
      const source = await this.opener.open(path);
      try {
        return (await readMetadata(source)).guid;
      } finally {
        await source.close();
      }
    } catch {
      return undefined;
    }
  }
}
