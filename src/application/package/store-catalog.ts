import { packageFileName } from '../../domain/dependencies/package-file-name.js';
import { compareVersions } from '../../domain/package/version-range.js';
import { OutputExistsError } from '../../domain/errors.js';
import type { PackageStore, PackageStores, StoreDirectories, StoreDirectory, StoredPackage, StoreFile } from '../ports/package-store.js';
import type { PackageOpener } from '../ports/package-source.js';
import type { Warnings } from '../ports/warnings.js';
import { readMetadata } from './package-reader.js';

/** What one `.cap` of a store says it is, or why it could not be read. */
type Entry = { guid: string; name: string; version: string } | { skipped: string };

interface Cached {
  identity: string;
  entry: Promise<Entry>;
}

/** How many store files are opened at once, across every lookup. */
const OPEN_AT_ONCE = 8;

/**
 * The packages a store holds, known from the `.cap` files themselves: each file's
 * metadata.json gives its GUID, name and version, whatever the file is called and
 * whether or not `index.json` lists it (the index is written for other tools, never
 * trusted here). Files are opened through the PackageOpener, so archive limits and
 * entry-name checks apply; one that cannot be read is skipped with a warning. What a
 * file said is kept by its identity (device, inode, size, modification time), so a
 * lookup reads only files that are new or changed since the last one.
 */
export class StoreCatalog implements PackageStores {
  /** Per store directory: file path -> what was read from it. */
  private readonly read = new Map<string, Map<string, Cached>>();
  private opening = 0;
  private readonly queued: Array<() => void> = [];

  constructor(
    private readonly directories: StoreDirectories,
    private readonly opener: PackageOpener,
    private readonly warnings: Warnings,
  ) {}

  open(directory: string): PackageStore {
    const store = this.directories.open(directory);
    return {
      location: store.location,
      versions: (guid) => this.versions(store, guid),
      install: async (entry, data, check) => {
        await this.refuseAnotherGuid(store, entry);
        return store.install(entry, data, check);
      },
      index: () => store.index(),
      reindex: (guid, file) => store.reindex(guid, file),
    };
  }

  private async versions(store: StoreDirectory, guid: string): Promise<StoredPackage[]> {
    const files = await store.files();
    let cache = this.read.get(store.location);
    if (!cache) this.read.set(store.location, (cache = new Map()));
    const listed = new Set(files.map((file) => file.path));
    // Forget files that are gone, so a store that churns does not grow the cache.
    for (const path of cache.keys()) if (!listed.has(path)) cache.delete(path);
    const entries = await Promise.all(
      files.map(async (file) => {
        let cached = cache.get(file.path);
        if (cached?.identity !== file.identity) cache.set(file.path, (cached = { identity: file.identity, entry: this.limited(() => this.entryOf(store, file)) }));
        return { file, entry: await cached.entry };
      }),
    );
    const byVersion = new Map<string, StoredPackage & { canonical: boolean }>();
    for (const { file, entry } of entries) {
      if ('skipped' in entry || entry.guid !== guid) continue;
      const canonical = file.name === packageFileName(entry.name, entry.version);
      // Two files of one version: the one named as install names it, else the first by name.
      if (byVersion.has(entry.version) && (byVersion.get(entry.version)!.canonical || !canonical)) continue;
      byVersion.set(entry.version, { version: entry.version, path: file.path, canonical });
    }
    return [...byVersion.values()].map(({ version, path }) => ({ version, path })).sort((a, b) => compareVersions(a.version, b.version));
  }

  /** The file an install would write, when it holds another GUID's package of that name and version: two packages, one file name. */
  private async refuseAnotherGuid(store: StoreDirectory, wanted: { guid: string; name: string; version: string }): Promise<void> {
    const name = packageFileName(wanted.name, wanted.version);
    const file = (await store.files()).find((candidate) => candidate.name === name);
    const held = file && (await this.entryOf(store, file));
    if (held && !('skipped' in held) && held.guid !== wanted.guid)
      throw new OutputExistsError(`${file.path} holds ${held.guid} ${held.version}, another package of the same name and version; install ${wanted.guid} into another store`);
  }

  private async entryOf(store: StoreDirectory, file: StoreFile): Promise<Entry> {
    try {
      const source = await this.opener.open(file.path);
      try {
        const { guid, name, version } = await readMetadata(source);
        if (!guid) throw new Error('its metadata.json has no guid, so nothing can depend on it');
        return { guid, name, version };
      } finally {
        await source.close();
      }
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.warnings.warn(`store ${store.location}: skipped ${file.name}: ${reason}`);
      return { skipped: reason };
    }
  }

  private async limited<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot to the next in line, so the count never overshoots.
    if (this.opening >= OPEN_AT_ONCE) await new Promise<void>((resolve) => this.queued.push(resolve));
    else this.opening++;
    try {
      return await task();
    } finally {
      const next = this.queued.shift();
      if (next) next();
      else this.opening--;
    }
  }
}
