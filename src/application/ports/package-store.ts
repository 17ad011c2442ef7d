import type { StoreIndex } from '../../domain/dependencies/store-index.js';

export interface StoredPackage {
  version: string;
  /** Full path of the `<name>-<version>.cap` file. */
  path: string;
}

/**
 * A package store: `<name>-<version>.cap` files and an `index.json` of GUID to file.
 * Installing writes the file whole, then rewrites the index whole; installs that run at
 * once (two processes, one store) leave both complete and the index consistent.
 */
export interface PackageStore {
  readonly location: string;
  /** The versions of a GUID the store holds: every `<name>-*.cap` of the name its index records. */
  versions(guid: string): Promise<StoredPackage[]>;
  /**
   * Installs one version. `check` runs on the written file before the index names it;
   * when it throws, the file is removed and the index is left as it was.
   */
  install(
    entry: { guid: string; name: string; version: string },
    data: AsyncIterable<Uint8Array>,
    check?: (path: string) => Promise<void>,
  ): Promise<StoredPackage>;
  index(): Promise<StoreIndex>;
  /** Every `<name>-<version>.cap` file in the store, with a token that changes whenever the file does (device, inode, size, time). */
  archives(): Promise<StoreArchive[]>;
}

export interface StoreArchive {
  path: string;
  name: string;
  version: string;
  identity: string;
}

export interface PackageStores {
  open(directory: string): PackageStore;
}
