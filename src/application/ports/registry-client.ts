import type { RegistryIndex, RegistryVersion } from '../../domain/dependencies/registry-index.js';

/** What a publish records: the package's identity and the bytes' SHA-256 and size. */
export interface Publication {
  guid: string;
  name: string;
  version: string;
  sha256: string;
  size: number;
}

/**
 * One registry: a directory or a static https base URL. Both read `index.json` and
 * stream published files; only a directory takes publications.
 */
export interface RegistryClient {
  /** The registry as it may be printed: credentials never appear in it. */
  readonly display: string;
  /** The registry's index.json, checked (InvalidRegistryError when malformed). */
  index(): Promise<RegistryIndex>;
  /** The bytes of one published version (FetchError when they cannot be had). */
  fetch(version: RegistryVersion): AsyncIterable<Uint8Array>;
  /**
   * Directory registries only: writes `<name>-<version>.cap` whole, then rewrites
   * index.json whole with the version recorded; concurrent publishers do not lose each
   * other's entries. The same bytes again publish nothing; other bytes for a published
   * version are OutputExistsError unless `overwrite`. A stream that throws leaves the
   * registry as it was.
   */
  publish?(publication: Publication, data: AsyncIterable<Uint8Array>, options: { overwrite: boolean }): Promise<{ entry: RegistryVersion; published: boolean }>;
}

/** Opens `--registry` / `PKG_REGISTRY` (InvalidRegistryError for a reference that cannot be one). */
export interface RegistryClients {
  open(reference: string): RegistryClient;
}
