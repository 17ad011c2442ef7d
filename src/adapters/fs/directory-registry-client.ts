import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { packageFileName } from '../../domain/dependencies/package-file-name.js';
import { parseRegistryIndex, REGISTRY_INDEX_FILE, withVersion, type RegistryIndex, type RegistryVersion } from '../../domain/dependencies/registry-index.js';
import { FetchError, InvalidRegistryError, OutputExistsError } from '../../domain/errors.js';
import type { Publication, RegistryClient } from '../../application/ports/registry-client.js';
import { withFileLock } from './file-lock.js';
import { writeWholeFile } from './whole-file.js';
import { makeDirectories } from '../shared/make-directories.js';
import { folderNotWritable, storageFailure } from '../shared/storage-failure.js';

/** A registry that is a directory: `index.json` and the published files, read and written in place. */
export class DirectoryRegistryClient implements RegistryClient {
  readonly display: string;
  private readonly indexPath: string;

  constructor(private readonly directory: string) {
    this.display = directory;
    this.indexPath = join(directory, REGISTRY_INDEX_FILE);
  }

  /** A directory without index.json is an empty registry (a first push makes it one); no directory is no registry. */
  async index(): Promise<RegistryIndex> {
    const isDirectory = await stat(this.directory).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDirectory) throw new InvalidRegistryError(`registry ${this.display} is not a directory`);
    let text: string;
    try {
      text = await readFile(this.indexPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { packages: {} };
      throw new InvalidRegistryError(`registry ${this.display}: cannot read ${REGISTRY_INDEX_FILE}: ${(error as Error).message}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new InvalidRegistryError(`${this.indexPath}: invalid JSON: ${(error as Error).message}`);
    }
    return parseRegistryIndex(raw, this.indexPath);
  }

  async *fetch(version: RegistryVersion): AsyncIterable<Uint8Array> {
    const path = join(this.directory, version.file);
    try {
      for await (const chunk of createReadStream(path)) yield chunk as Buffer;
    } catch (error) {
      throw new FetchError(`cannot read ${path} from registry ${this.display}: ${(error as Error).message}`);
    }
  }

  async publish(publication: Publication, data: AsyncIterable<Uint8Array>, options: { overwrite: boolean }): Promise<{ entry: RegistryVersion; published: boolean }> {
    try {
      return await this.publishLocked(publication, data, options);
    } catch (error) {
      const where = `cannot write into registry ${this.display}`;
      // Its lock file is the first thing written: node's error would name that file, not the folder the operator must fix.
      throw storageFailure(where, error) ?? folderNotWritable(where, 'the registry directory', error) ?? error;
    }
  }

  private async publishLocked(publication: Publication, data: AsyncIterable<Uint8Array>, options: { overwrite: boolean }): Promise<{ entry: RegistryVersion; published: boolean }> {
    await makeDirectories(this.directory);
    // The check and the write happen under one lock: two pushes of one version cannot both win.
    return withFileLock(`${this.indexPath}.lock`, async () => {
      const index = await this.index();
      const { guid, name, version, sha256, size } = publication;
      const known = Object.hasOwn(index.packages, guid) ? index.packages[guid]!.versions[version] : undefined;
      const same = known !== undefined && known.sha256 === sha256 && known.size === size;
      // A push killed between its index write and its file's rename left an entry naming bytes the file lacks: pushed again, they are written.
      if (same && (await this.holds(known))) return { entry: known, published: false };
      if (known && !same && !options.overwrite) throw new OutputExistsError(`${name} ${version} (${guid}) is already in registry ${this.display} with other bytes; use --force to replace it`);
      const entry = { file: packageFileName(name, version), sha256, size };
      // One file name, two packages: the other's published bytes would change under its index entry. --force replaces this GUID's own only.
      const owner = Object.entries(index.packages).find(([other, published]) => other !== guid && Object.values(published.versions).some((listed) => listed.file === entry.file));
      if (owner) throw new OutputExistsError(`${entry.file} in registry ${this.display} is ${owner[0]} ${version}, another package of the same name and version; ${guid} cannot be published there under that name`);
      await this.writeWithEntry(join(this.directory, entry.file), data, withVersion(index, guid, name, version, entry), index);
      return { entry, published: true };
    });
  }

  /**
   * The package's file and its entry, written so that a failure leaves the file and the
   * index in step: the new bytes wait beside the file until the index names them, and take
   * its name only then. An index that cannot be written (a full disk) leaves the file it
   * would have replaced, and its entry, as they were.
   */
  private async writeWithEntry(file: string, data: AsyncIterable<Uint8Array>, next: RegistryIndex, before: RegistryIndex): Promise<void> {
    let indexed = false;
    try {
      await writeWholeFile(file, data, 0o644, async () => {
        await this.writeIndex(next);
        indexed = true;
      });
    } catch (error) {
      // Named in the index, the new bytes did not take the file's name: the old entry goes back with the old file.
      if (indexed) await this.writeIndex(before).catch(() => undefined);
      throw error;
    }
  }

  /** Whether the file an entry names holds the bytes it lists. */
  private async holds(entry: RegistryVersion): Promise<boolean> {
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of createReadStream(join(this.directory, entry.file))) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    return size === entry.size && hash.digest('hex') === entry.sha256;
  }

  private writeIndex(index: RegistryIndex): Promise<void> {
    return writeWholeFile(this.indexPath, new TextEncoder().encode(JSON.stringify(index, null, 2) + '\n'));
  }
}
