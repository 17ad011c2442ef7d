import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { packageFileName, parsePackageFileName } from '../../domain/dependencies/package-file-name.js';
import { parseStoreIndex, STORE_INDEX_FILE, type StoreIndex } from '../../domain/dependencies/store-index.js';
import { ConfigParseError, ConfigValidationError, UsageError } from '../../domain/errors.js';
import { defineOwn } from '../../domain/package/documents.js';
import { compareVersions } from '../../domain/package/version-range.js';
import type { StoreDirectories, StoreDirectory, StoredPackage, StoreFile } from '../../application/ports/package-store.js';
import { withFileLock } from './file-lock.js';
import { writeWholeFile } from './whole-file.js';
import { folderNotWritable, storageFailure } from '../shared/storage-failure.js';

export class FsStoreDirectories implements StoreDirectories {
  open(directory: string): StoreDirectory {
    return new FsStoreDirectory(resolve(directory));
  }
}

/**
 * A store directory. The `.cap` is written to a hidden sibling and renamed, so the
 * same version installed twice at once ends as one whole file either way; the index
 * is re-read and rewritten under a lock file, so no install loses another's entry.
 */
export class FsStoreDirectory implements StoreDirectory {
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

  /**
   * Regular files (or links to them) named `*.cap`; hidden names are skipped, which
   * leaves out the partial files of installs under way.
   */
  async files(): Promise<StoreFile[]> {
    const found: StoreFile[] = [];
    for (const name of (await this.names()).filter((file) => /\.cap$/i.test(file) && !file.startsWith('.')).sort()) {
      const path = join(this.location, name);
      const stats = await stat(path, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
        // Removed since the listing, or a link to nothing: not a file of the store.
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (stats?.isFile()) found.push({ name, path, identity: `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}` });
    }
    return found;
  }

  async install(entry: { guid: string; name: string; version: string }, data: AsyncIterable<Uint8Array>, check?: (path: string) => Promise<void>): Promise<StoredPackage> {
    const path = join(this.location, packageFileName(entry.name, entry.version));
    // Checked before the rename: a download that fails it leaves whatever had the name alone.
    await writeWholeFile(path, data, 0o644, check).catch((error: NodeJS.ErrnoException) => {
      throw this.unwritable(error);
    });
    // The index names the newest version beside it, whatever order installs finish in.
    await this.rewriteIndex(entry.guid, async () => packageFileName(entry.name, (await this.versionsOf(entry.name)).at(-1)!.version));
    return { version: entry.version, path };
  }

  async reindex(guid: string, file: string | undefined): Promise<void> {
    await this.rewriteIndex(guid, async () => file);
  }

  /**
   * Read, changed and written whole under a lock file: the index is read-merge-write, so
   * an install and an uninstall at once would otherwise lose one of their entries.
   */
  private async rewriteIndex(guid: string, fileFor: () => Promise<string | undefined>): Promise<void> {
    await withFileLock(`${this.indexPath}.lock`, async () => {
      // The index is a hint for readers, never the truth: a broken one is replaced, and
      // entries whose file is gone are dropped.
      const index = await this.index().catch((error: unknown) => {
        if (error instanceof ConfigParseError || error instanceof ConfigValidationError) return {} as StoreIndex;
        throw error;
      });
      const present = new Set(await this.names());
      const next: StoreIndex = Object.fromEntries(Object.entries(index).filter(([, file]) => present.has(file)));
      const file = await fileFor();
      if (file === undefined) delete next[guid];
      else defineOwn(next, guid, file);
      await writeWholeFile(this.indexPath, new TextEncoder().encode(JSON.stringify(next, null, 2) + '\n'));
    }).catch((error: NodeJS.ErrnoException) => {
      throw this.unwritable(error);
    });
  }

  private async names(): Promise<string[]> {
    return readdir(this.location).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw this.notADirectory(error);
    });
  }

  /** A store given as a file (or below one) is the user's to mend: said as such, not as a fault. */
  private notADirectory(error: NodeJS.ErrnoException): Error {
    return error.code === 'ENOTDIR' || error.code === 'EEXIST' ? new UsageError(`the store ${this.location} is not a directory`) : error;
  }

  /** A full or read-only store, or one its user may not write, is the operator's to mend: said as such (not as node's error naming a temporary file), not as a fault. */
  private unwritable(error: NodeJS.ErrnoException): Error {
    const where = `cannot write into the store ${this.location}`;
    return storageFailure(where, error) ?? folderNotWritable(where, 'the store directory', error) ?? this.notADirectory(error);
  }

  /** Every `<name>-<version>.cap` of one name in the store, oldest version first. */
  private async versionsOf(name: string): Promise<StoredPackage[]> {
    return (await this.names())
      .map((file) => ({ file, parsed: parsePackageFileName(file) }))
      .filter(({ parsed }) => parsed?.name === name)
      .map(({ file, parsed }) => ({ version: parsed!.version, path: join(this.location, file) }))
      .sort((a, b) => compareVersions(a.version, b.version));
  }
}
