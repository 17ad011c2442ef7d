import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { packageFileName } from '../../domain/dependencies/package-file-name.js';
import { parseRegistryIndex, REGISTRY_INDEX_FILE, withVersion, type RegistryIndex, type RegistryVersion } from '../../domain/dependencies/registry-index.js';
import { FetchError, InvalidRegistryError } from '../../domain/errors.js';
import type { Publication, RegistryClient } from '../../application/ports/registry-client.js';
import { withFileLock } from './file-lock.js';
import { writeWholeFile } from './whole-file.js';

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

  async publish(publication: Publication, data: AsyncIterable<Uint8Array>): Promise<RegistryVersion> {
    const file = packageFileName(publication.name, publication.version);
    await writeWholeFile(join(this.directory, file), data);
    const entry = { file, sha256: publication.sha256, size: publication.size };
    await withFileLock(`${this.indexPath}.lock`, async () => {
      const index = withVersion(await this.index(), publication.guid, publication.name, publication.version, entry);
      await writeWholeFile(this.indexPath, new TextEncoder().encode(JSON.stringify(index, null, 2) + '\n'));
    });
    return entry;
  }
}
