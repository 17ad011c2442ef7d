import type { StoreIndex } from '../../domain/dependencies/store-index.js';

export interface StoredPackage {
  version: string;
  /** Full path of the `.cap` file. */
  path: string;
}

/**
 * A package store as dependency resolution and `pkg install` see it: which versions of a
 * GUID it holds, and installing one more.
 */
export interface PackageStore {
  readonly location: string;
  /** The versions of a GUID the store holds, oldest first: every `.cap` whose metadata.json names that GUID. */
  versions(guid: string): Promise<StoredPackage[]>;
  /**
   * Installs one version as `<name>-<version>.cap`. `check` runs on the written bytes
   * (a file beside that name) before they take it; when it throws, they are removed and
   * nothing in the store changes. A file of that name holding another GUID's package is
   * not replaced: OutputExistsError.
   */
  install(
    entry: { guid: string; name: string; version: string },
    data: AsyncIterable<Uint8Array>,
    check?: (path: string) => Promise<void>,
  ): Promise<StoredPackage>;
  index(): Promise<StoreIndex>;
  reindex: StoreDirectory['reindex'];
}

export interface PackageStores {
  open(directory: string): PackageStore;
}

/** One `.cap` file of a store directory. */
export interface StoreFile {
  /** The file's name in the store directory. */
  name: string;
  path: string;
  /** Changes whenever the file's bytes may have: device, inode, size and modification time. */
  identity: string;
}

/**
 * The directory a store lives in: `<name>-<version>.cap` files and an `index.json` of GUID
 * to file. Installing writes the file whole, then rewrites the index whole; installs that
 * run at once (two processes, one store) leave both complete and the index consistent.
 */
export interface StoreDirectory {
  readonly location: string;
  /** Every `.cap` file in the directory, by name; none when the directory does not exist. */
  files(): Promise<StoreFile[]>;
  install: PackageStore['install'];
  index(): Promise<StoreIndex>;
  /**
   * Points the index's entry for a GUID at a file of the store (by name), or drops it
   * (`undefined`): rewritten whole as install rewrites it, taking turns with installs,
   * with the entries whose file is gone dropped and a broken index replaced.
   */
  reindex(guid: string, file: string | undefined): Promise<void>;
}

export interface StoreDirectories {
  open(directory: string): StoreDirectory;
}
