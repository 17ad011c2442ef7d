import { createReadStream } from 'node:fs';
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { SourceNotFoundError, UnsafeEntryError } from '../../domain/errors.js';
import { sortByPath } from '../../domain/package/package-paths.js';
import type { PackageEntry, PackageSource } from '../../application/ports/package-source.js';

const SMALL_FILE = 1024 * 1024;

/** Version-control folders are never part of a package. */
const SKIPPED_DIRECTORIES = new Set(['.git', '.hg', '.svn']);

/** A package directory. Symbolic links are followed only while they stay inside it. */
export class DirectoryPackageSource implements PackageSource {
  readonly kind = 'directory';
  private readonly byPath: Map<string, PackageEntry & { file: string }>;

  private constructor(
    readonly location: string,
    private readonly list: (PackageEntry & { file: string })[],
  ) {
    this.byPath = new Map(list.map((entry) => [entry.path, entry]));
  }

  static async open(directory: string): Promise<DirectoryPackageSource> {
    const root = await realpath(directory).catch(() => {
      throw new SourceNotFoundError(`package directory not found: ${directory}`);
    });
    const found: (PackageEntry & { file: string })[] = [];
    await walk(root, root, found);
    sortByPath(found, (entry) => entry.path);
    return new DirectoryPackageSource(directory, found);
  }

  entries(): readonly PackageEntry[] {
    return this.list;
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  async read(path: string): Promise<Uint8Array> {
    return readFile(this.file(path));
  }

  stream(path: string): AsyncIterable<Uint8Array> {
    const entry = this.byPath.get(path);
    // A read stream allocates its whole buffer even for a tiny file; small files are read in one go.
    if (entry && entry.size <= SMALL_FILE) return once(readFile(entry.file));
    return createReadStream(this.file(path), { highWaterMark: 256 * 1024 });
  }

  async current(path: string): Promise<{ size: number; version: string } | undefined> {
    const entry = this.byPath.get(path);
    if (!entry) return undefined;
    try {
      const info = await stat(entry.file, { bigint: true });
      return { size: Number(info.size), version: `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` };
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {}

  private file(path: string): string {
    const entry = this.byPath.get(path);
    if (!entry) throw new SourceNotFoundError(`${this.location}: no file ${path}`);
    return entry.file;
  }
}

async function walk(root: string, directory: string, found: (PackageEntry & { file: string })[]): Promise<void> {
  for (const dirent of await readdir(directory, { withFileTypes: true })) {
    const file = join(directory, dirent.name);
    const path = relative(root, file).split(sep).join('/');
    if (dirent.isSymbolicLink()) {
      const target = await realpath(file).catch(() => {
        throw new UnsafeEntryError(path, 'symbolic link whose target does not exist');
      });
      if (target !== root && !target.startsWith(root + sep)) throw new UnsafeEntryError(path, `symbolic link points outside the package (${target})`);
      const stats = await stat(target);
      if (stats.isDirectory()) await walkLinked(root, target, path, found);
      else if (stats.isFile()) found.push({ path, size: stats.size, file: target });
    } else if (dirent.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(dirent.name)) await walk(root, file, found);
    } else if (dirent.isFile()) {
      found.push({ path, size: (await stat(file)).size, file });
    }
  }
}

/** A linked directory inside the package: its files appear under the link's own path. */
async function walkLinked(root: string, target: string, linkPath: string, found: (PackageEntry & { file: string })[]): Promise<void> {
  const inner: (PackageEntry & { file: string })[] = [];
  await walk(target, target, inner);
  for (const entry of inner) {
    if (!entry.file.startsWith(root + sep)) throw new UnsafeEntryError(`${linkPath}/${entry.path}`, 'symbolic link points outside the package');
    found.push({ ...entry, path: `${linkPath}/${entry.path}` });
  }
}

async function* once(bytes: Promise<Uint8Array>): AsyncIterable<Uint8Array> {
  yield await bytes;
}
