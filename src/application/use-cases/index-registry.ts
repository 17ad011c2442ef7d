import { once } from '../shared/bytes.js';
import { REGISTRY_INDEX_FILE, withVersion, type RegistryIndex } from '../../domain/dependencies/registry-index.js';
import { sortPaths } from '../../domain/package/package-paths.js';
import { readMetadata, toJsonBytes } from '../package/package-reader.js';
import { digestOf } from '../package/verified-bytes.js';
import { messageOf } from '../shared/error-message.js';
import type { FileWriter } from '../ports/file-writer.js';
import type { LocalFiles } from '../ports/local-files.js';
import { InvalidRegistryError } from '../../domain/errors.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener } from '../ports/package-source.js';
import type { StoreDirectories } from '../ports/package-store.js';
import type { RegistryClients } from '../ports/registry-client.js';

export interface IndexOutcome {
  path: string;
  packages: number;
  versions: number;
  /** Files that are not packages this index can list, with why. */
  skipped: string[];
}

/**
 * `pkg registry index <dir>`, as `helm repo index` does for charts: index.json rebuilt
 * from the `.cap` files in a directory, each listed by the GUID, name and version in its
 * own metadata.json with its SHA-256 and size. With `merge`, the entries of the index
 * already there are kept, and the files found replace theirs.
 */
export class IndexRegistry {
  constructor(
    private readonly directories: StoreDirectories,
    private readonly opener: PackageOpener,
    private readonly hasher: Hasher,
    private readonly registries: RegistryClients,
    private readonly files: FileWriter,
    private readonly local: LocalFiles,
  ) {}

  async execute(request: { directory: string; merge: boolean }): Promise<IndexOutcome> {
    if ((await this.local.version(request.directory)) === undefined) throw new InvalidRegistryError(`registry ${request.directory} is not a directory`);
    // An index to merge into that cannot be read is refused, never taken for an empty one: its entries would go unsaid.
    let index: RegistryIndex = request.merge
      ? await this.registries.open(request.directory).index().catch((error: unknown) => {
          throw new InvalidRegistryError(`${(error as Error).message}; --merge keeps the entries of the index there, so it must read: mend it, or index without --merge to start afresh`);
        })
      : { packages: {} };
    const skipped: string[] = [];
    const found = await this.directories.open(request.directory).files();
    for (const file of found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      try {
        const source = await this.opener.open(file.path);
        try {
          const { guid, name, version } = await readMetadata(source);
          if (guid === undefined) throw new Error('its metadata.json has no guid (0.1.x metadata)');
          index = withVersion(index, guid, name, version, { file: file.name, ...(await digestOf(source.archiveBytes!(), this.hasher)) });
        } finally {
          await source.close();
        }
      } catch (error) {
        skipped.push(`${file.name}: ${messageOf(error)}`);
      }
    }
    const sorted: RegistryIndex = { packages: Object.fromEntries(sortPaths(Object.keys(index.packages)).map((guid) => [guid, index.packages[guid]!])) };
    const path = `${request.directory}/${REGISTRY_INDEX_FILE}`;
    await this.files.write(path, once(toJsonBytes(sorted)), { overwrite: true });
    const versions = Object.values(sorted.packages).reduce((sum, entry) => sum + Object.keys(entry.versions).length, 0);
    return { path, packages: Object.keys(sorted.packages).length, versions, skipped };
  }
}
