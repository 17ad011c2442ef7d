import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OutputExistsError, UnsafeEntryError, UsageError } from '../../domain/errors.js';
import type { DirectoryDraft, DirectoryWriter } from '../../application/ports/directory-writer.js';
import { makeDirectories } from '../shared/make-directories.js';
import { statOf } from '../shared/stat-of.js';
import { folderNotWritable, storageFailure } from '../shared/storage-failure.js';
import { unfinished } from '../shared/unfinished-paths.js';

/**
 * Fills a hidden sibling of the destination and renames it into place on commit,
 * so a failed extraction leaves nothing behind.
 */
export class FsDirectoryWriter implements DirectoryWriter {
  async create(destination: string, options: { replace: boolean }): Promise<DirectoryDraft> {
    const target = resolve(destination);
    if (!options.replace && (await occupied(target))) throw new OutputExistsError(`${target} exists and is not an empty directory; use --force to replace it`);
    const draft = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
    await makeDirectories(dirname(target)).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot create ${dirname(target)}: ${error.code ?? error.message}`);
    });
    // Watched before it exists: a signal between the two would otherwise leave it behind.
    unfinished.add(draft);
    await mkdir(draft).catch((error: NodeJS.ErrnoException) => {
      unfinished.delete(draft);
      const where = `cannot write into ${dirname(target)}`;
      throw storageFailure(where, error) ?? folderNotWritable(where, 'the folder', error) ?? new UsageError(`${where}: ${error.code ?? error.message}`);
    });
    return new FsDirectoryDraft(target, draft);
  }
}

class FsDirectoryDraft implements DirectoryDraft {
  constructor(
    private readonly target: string,
    private readonly draft: string,
  ) {}

  async write(path: string, data: AsyncIterable<Uint8Array>): Promise<void> {
    const file = resolve(this.draft, path);
    // Defence in depth: the use case has checked the name already.
    if (!file.startsWith(this.draft + sep)) throw new UnsafeEntryError(path, 'escapes the destination');
    try {
      await makeDirectories(dirname(file));
      // `wx`: the draft is new, so a name already there is one an earlier entry took.
      await pipeline(Readable.from(data), createWriteStream(file, { mode: 0o644, flags: 'wx' }));
    } catch (error) {
      throw storageFailure(`cannot write ${path} into ${this.target}`, error) ?? tookAgain(path, error);
    }
  }

  async commit(): Promise<string> {
    if (await emptyDirectory(this.target)) {
      // An empty directory that is there stays (a shell may be in it; its owner and mode are the user's): the files move in.
      for (const name of await readdir(this.draft)) await rename(join(this.draft, name), join(this.target, name));
      await rm(this.draft, { recursive: true, force: true });
    } else {
      await rm(this.target, { recursive: true, force: true });
      await rename(this.draft, this.target);
    }
    unfinished.delete(this.draft);
    return this.target;
  }

  async discard(): Promise<void> {
    await rm(this.draft, { recursive: true, force: true });
    unfinished.delete(this.draft);
  }
}

/**
 * Entry names are checked as distinct before anything is written, but a file system that
 * folds letter case (macOS, Windows) takes `About.html` for `about.html`: written over,
 * one entry's bytes would stand under both names, and unpack would report success.
 */
function tookAgain(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EEXIST' && code !== 'ENOTDIR' && code !== 'EISDIR') return error;
  return new UnsafeEntryError(path, 'another entry took this name here already: this file system does not tell their letter case apart');
}

async function emptyDirectory(path: string): Promise<boolean> {
  return readdir(path).then(
    (names) => names.length === 0,
    () => false,
  );
}

/** Anything but a missing path or an empty directory; a path that cannot be one (below a file, too long) is the system's error to tell. */
async function occupied(path: string): Promise<boolean> {
  try {
    return (await readdir(path)).length > 0;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    // ENOTDIR for a file there (occupied), or for a file above it (nothing can be made there).
    if (code === 'ENOTDIR' && (await statOf(path)) === undefined) throw error;
    if (code === 'ENAMETOOLONG') throw error;
    return true;
  }
}
