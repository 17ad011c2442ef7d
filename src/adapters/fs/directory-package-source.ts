import { constants, existsSync } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { ArchiveLimitError, SourceNotFoundError, SourceUnreadableError, UnsafeEntryError } from '../../domain/errors.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../../domain/package/archive-limits.js';
import { entryNamesProblem, sortByPath, unsafePathReason } from '../../domain/package/package-paths.js';
import type { OpenFile, PackageEntry, PackageSource } from '../../application/ports/package-source.js';

const SMALL_FILE = 1024 * 1024;

/** Where Linux names the file an open descriptor reads: checked after opening, no link swapped in between can escape the check. */
const OPEN_FILES = existsSync('/proc/self/fd') ? '/proc/self/fd/' : undefined;

/** Version-control folders are never part of a package. */
const SKIPPED_DIRECTORIES = new Set(['.git', '.hg', '.svn']);

/** A package directory. Symbolic links are followed only while they stay inside it. */
export class DirectoryPackageSource implements PackageSource {
  readonly kind = 'directory';
  private readonly byPath: Map<string, PackageEntry & { file: string }>;

  private constructor(
    readonly location: string,
    /** The directory's real path: every file read must be inside it. */
    private readonly root: string,
    private readonly list: (PackageEntry & { file: string })[],
  ) {
    this.byPath = new Map(list.map((entry) => [entry.path, entry]));
  }

  /** `maxSteps`: files and folders the walk may meet, links followed (an archive's entry limit unless given). */
  static async open(directory: string, maxSteps = DEFAULT_ARCHIVE_LIMITS.maxEntries): Promise<DirectoryPackageSource> {
    const root = await realpath(directory).catch(() => {
      throw new SourceNotFoundError(`package directory not found: ${directory}`);
    });
    const state: Walk = { root, found: [], inside: new Set(), steps: 0, maxSteps };
    await walk(state, root, '');
    sortByPath(state.found, (entry) => entry.path);
    const source = new DirectoryPackageSource(directory, root, state.found);
    // Fine one by one, not together: two Unicode spellings of a name would never pack, nor read back from an archive.
    const clash = entryNamesProblem(state.found.map((entry) => entry.path), (name) => source.has(name));
    if (clash) throw new UnsafeEntryError(clash.name, clash.reason);
    return source;
  }

  entries(): readonly PackageEntry[] {
    return this.list;
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  sizeOf(path: string): number | undefined {
    return this.byPath.get(path)?.size;
  }

  async read(path: string): Promise<Uint8Array> {
    const handle = await this.opened(path);
    try {
      return await handle.readFile();
    } catch (error) {
      this.gone(path, error);
    } finally {
      await handle.close();
    }
  }

  async *stream(path: string): AsyncIterable<Uint8Array> {
    const entry = this.byPath.get(path);
    // A read stream allocates its whole buffer even for a tiny file; small files are read in one go.
    if (entry && entry.size <= SMALL_FILE) {
      yield await this.read(path);
      return;
    }
    const handle = await this.opened(path);
    try {
      yield* handle.createReadStream({ highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>;
    } catch (error) {
      this.gone(path, error);
    } finally {
      await handle.close();
    }
  }

  /** A range read where it lies: seeking near the end of a large video does not read all of it. */
  async *range(path: string, start: number, end: number): AsyncIterable<Uint8Array> {
    const handle = await this.opened(path);
    try {
      yield* handle.createReadStream({ start, end, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>;
    } catch (error) {
      this.gone(path, error);
    } finally {
      await handle.close();
    }
  }

  async current(path: string): Promise<{ size: number; version: string } | undefined> {
    const entry = this.byPath.get(path);
    if (!entry) return undefined;
    try {
      const info = await stat(entry.file, { bigint: true });
      if (!info.isFile()) return undefined;
      return { size: Number(info.size), version: versionOf(info) };
    } catch {
      return undefined;
    }
  }

  async openFile(path: string): Promise<OpenFile> {
    const handle = await this.opened(path);
    try {
      const info = await handle.stat({ bigint: true });
      return {
        version: versionOf(info),
        size: Number(info.size),
        bytes: (start, end) => this.positioned(path, handle, start, end),
        versionNow: async () => versionOf(await handle.stat({ bigint: true })),
        close: () => handle.close(),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Read where they lie, as often as asked, the handle left open for the next read. */
  private async *positioned(path: string, handle: FileHandle, start: number, end: number): AsyncIterable<Uint8Array> {
    if (end < start) return;
    try {
      yield* handle.createReadStream({ start, end, highWaterMark: 256 * 1024, autoClose: false }) as AsyncIterable<Buffer>;
    } catch (error) {
      this.gone(path, error);
    }
  }

  async close(): Promise<void> {}

  /**
   * A file listed when the directory was read and removed (or made a folder) since: not
   * there, as a path never listed is not. One the system will not open or read now (made
   * unreadable, every file descriptor taken, a failing disk) is there, but not to be served.
   */
  private gone(path: string, error: unknown): never {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') throw new SourceNotFoundError(`${this.location}: no file ${path} (removed since the package was read)`, { cause: error });
    if (code !== undefined && /^E[A-Z]+$/.test(code)) throw new SourceUnreadableError(`${path} cannot be read: ${(error as Error).message.split(', ')[0]}`, { cause: error });
    throw error;
  }

  /**
   * The listed file, opened, and only while it is still inside the package: the walk
   * refused links that lead out, but a file or folder can be swapped for one after it
   * (`ln -sf /etc/passwd content/notes.txt` by whoever may write the content). Such a file
   * is not there, as nginx's `disable_symlinks if_not_owner` would have it.
   */
  private async opened(path: string): Promise<FileHandle> {
    const entry = this.byPath.get(path);
    if (!entry) throw new SourceNotFoundError(`${this.location}: no file ${path}`);
    // Non-blocking: a named pipe put in a file's place would hold the open, and the thread pool with it, until someone wrote to it.
    const handle = await open(entry.file, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: unknown) => this.gone(path, error));
    try {
      // Listed by its real path: the same path back means nothing was swapped on the way.
      const real = OPEN_FILES ? await readlink(OPEN_FILES + handle.fd) : await realpath(entry.file);
      if (real !== entry.file && !real.startsWith(this.root + sep)) throw new SourceNotFoundError(`${this.location}: ${path} now leads outside the package, through a symbolic link made since it was listed; not served`);
      if (!(await handle.stat()).isFile()) throw new SourceNotFoundError(`${this.location}: ${path} is no longer a file; not served`);
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
}

/** What changes with a file's bytes: its inode, size and times (a write in place sets them). */
function versionOf(info: BigIntStats): string {
  return `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** One walk of a package directory: what it found, and the real paths of the folders it is inside. */
interface Walk {
  root: string;
  found: (PackageEntry & { file: string })[];
  /** A link to one of these (`content/up -> ..`) would be walked forever. */
  inside: Set<string>;
  /** Files and folders met so far: links that fan out (each folder linking twice to the next) make 2^n of them from a few kilobytes. */
  steps: number;
  maxSteps: number;
}

/** The files below `directory` (a real path), named below `prefix`, the package path it has (empty for the root). */
async function walk(state: Walk, directory: string, prefix: string): Promise<void> {
  state.inside.add(directory);
  for (const dirent of await readdir(directory, { withFileTypes: true })) {
    // As many as an archive may hold: a package directory holding more would not pack.
    if (++state.steps > state.maxSteps)
      throw new ArchiveLimitError(`${state.root} holds more than ${state.maxSteps} files and folders, counted through its links (do links fan out into the same folders?)`);
    const file = join(directory, dirent.name);
    const path = prefix + dirent.name;
    if (dirent.name.includes('\uFFFD')) await namedInUtf8(file, path);
    // What pack, unpack and every archive reader refuse (a line break or a backslash in a name) is refused here too, so validate and the reactor agree with them.
    const unsafe = unsafePathReason(path);
    if (unsafe !== undefined) throw new UnsafeEntryError(path, unsafe);
    if (dirent.isSymbolicLink()) {
      const target = await realpath(file).catch(() => {
        throw new UnsafeEntryError(path, 'symbolic link whose target does not exist');
      });
      const { root } = state;
      if (target !== root && !target.startsWith(root + sep)) throw new UnsafeEntryError(path, `symbolic link points outside the package (${target})`);
      const stats = await stat(target);
      if (stats.isDirectory()) {
        if (state.inside.has(target)) throw new UnsafeEntryError(path, `symbolic link back to ${relative(root, target) || 'the package folder'}, a folder that holds it: its files would never end`);
        await walk(state, target, `${path}/`);
      } else if (stats.isFile()) state.found.push({ path, size: stats.size, file: target });
    } else if (dirent.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(dirent.name)) await walk(state, file, `${path}/`);
    } else if (dirent.isFile()) {
      state.found.push({ path, size: (await stat(file)).size, file });
    }
  }
  state.inside.delete(directory);
}

/**
 * A name read with U+FFFD in it: the file system's name may hold bytes that are not UTF-8,
 * which reading decoded to U+FFFD, and then no file has the decoded name.
 */
async function namedInUtf8(file: string, path: string): Promise<void> {
  const found = await lstat(file).then(
    () => true,
    () => false,
  );
  if (!found) throw new UnsafeEntryError(path, 'its name on disk is not UTF-8, which package names are (rename the file)');
}

