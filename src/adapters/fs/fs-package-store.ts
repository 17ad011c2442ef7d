import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { packageFileName, parsePackageFileName } from '../../domain/dependencies/package-file-name.js';
import { parseStoreIndex, STORE_INDEX_FILE, type StoreIndex } from '../../domain/dependencies/store-index.js';
import { ConfigParseError } from '../../domain/errors.js';
import { compareVersions } from '../../domain/package/version-range.js';
import type { PackageStore, PackageStores, StoreArchive, StoredPackage } from '../../application/ports/package-store.js';
import { withFileLock } from './file-lock.js';
import { writeWholeFile } from './whole-file.js';

export class FsPackageStores implements PackageStores {
  open(directory: string): PackageStore {
    return new FsPackageStore(resolve(directory));
  }
}

/**
 * A store directory. The `.cap` is written to a hidden sibling and renamed, so the
 * same version installed twice at once ends as one whole file either way; the index
 * is re-read and rewritten under a lock file, so no install loses another's entry.
 */
export class FsPackageStore implements PackageStore {
  private readonly indexPath: string;

  constructor(readonly location: string) {
    this.indexPath = join(location, STORE_INDEX_FILE);
  }

  async index(): Promise<StoreIndex> {
    let text: string;
    try {
      text = await readFile(this.indexPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ConfigParseError(this.indexPath, `invalid JSON: ${(error as Error).message}`);
    }
    return parseStoreIndex(raw, this.indexPath);
  }

  async versions(guid: string): Promise<StoredPackage[]> {
    const file = (await this.index())[guid];
    if (file === undefined) return [];
    return this.versionsOf(parsePackageFileName(file)!.name);
  }

  async install(entry: { guid: string; name: string; version: string }, data: AsyncIterable<Uint8Array>, check?: (path: string) => Promise<void>): Promise<StoredPackage> {
    const path = join(this.location, packageFileName(entry.name, entry.version));
    await writeWholeFile(path, data);
    if (check) {
      try {
        await check(path);
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      }
    }
    await withFileLock(`${this.indexPath}.lock`, async () => {
      const index = await this.index();
      // The index names the newest version beside it, whatever order installs finish in.
      const newest = (await this.versionsOf(entry.name)).at(-1)!;
      await writeWholeFile(this.indexPath, new TextEncoder().encode(JSON.stringify({ ...index, [entry.guid]: packageFileName(entry.name, newest.version) }, null, 2) + '\n'));
    });
    return { version: entry.version, path };
  }

  async archives(): Promise<StoreArchive[]> {
    const archives: StoreArchive[] = [];
    for (const file of await this.fileNames()) {
      const parsed = parsePackageFileName(file);
      if (!parsed) continue;
      const path = join(this.location, file);
      const info = await stat(path).catch(() => undefined);
      if (info?.isFile()) archives.push({ path, ...parsed, identity: `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}` });
    }
    return archives;
  }

  private fileNames(): Promise<string[]> {
    return readdir(this.location).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
  }

  /** Every whole `<name>-<version>.cap` in the store, oldest version first. */
  private async versionsOf(name: string): Promise<StoredPackage[]> {
    return (await this.fileNames())
      .map((file) => ({ file, parsed: parsePackageFileName(file) }))
      .filter(({ parsed }) => parsed?.name === name)
      .map(({ file, parsed }) => ({ version: parsed!.version, path: join(this.location, file) }))
      .sort((a, b) => compareVersions(a.version, b.version));
  }
}
