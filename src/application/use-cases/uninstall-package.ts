import { PackageNotFoundError } from '../../domain/errors.js';
import type { FileWriter } from '../ports/file-writer.js';
import type { PackageStores, StoredPackage } from '../ports/package-store.js';

export interface Uninstalled {
  guid: string;
  removed: StoredPackage[];
  /** The versions of the GUID the store still holds. */
  remaining: string[];
}

/**
 * `pkg uninstall <guid>`: removes every version of a package from a store, or one with
 * `version`, and updates the store's index.json (the GUID names its newest remaining
 * file, or leaves the index).
 */
export class UninstallPackage {
  constructor(
    private readonly stores: PackageStores,
    private readonly files: FileWriter,
  ) {}

  async execute(request: { guid: string; store: string; version?: string }): Promise<Uninstalled> {
    const store = this.stores.open(request.store);
    const wanted = (stored: StoredPackage) => request.version === undefined || stored.version === request.version;
    let held = await store.versions(request.guid);
    if (!held.some(wanted)) {
      const versions = held.map((stored) => stored.version).join(', ');
      throw new PackageNotFoundError(`${request.guid}${request.version ? ` ${request.version}` : ''} is not in store ${store.location}${versions ? `; it holds ${versions}` : ''}`);
    }
    // A store names one file per version, but a copy under another name holds it too and takes its place once it goes.
    const removed: StoredPackage[] = [];
    for (let found = held.filter(wanted); found.length > 0; found = held.filter(wanted)) {
      if (found.some((stored) => removed.some((gone) => gone.path === stored.path))) break;
      for (const stored of found) await this.files.remove(stored.path);
      removed.push(...found);
      held = await store.versions(request.guid);
    }
    const remaining = held.filter((stored) => !wanted(stored));
    const newest = remaining.at(-1);
    await store.reindex(request.guid, newest && newest.path.slice(newest.path.lastIndexOf('/') + 1));
    return { guid: request.guid, removed, remaining: remaining.map((stored) => stored.version) };
  }
}
