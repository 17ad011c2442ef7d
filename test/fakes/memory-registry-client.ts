import { createHash } from 'node:crypto';
import type { Publication, RegistryClient, RegistryClients } from '../../src/application/ports/registry-client.js';
import { packageFileName } from '../../src/domain/dependencies/package-file-name.js';
import { parseRegistryIndex, REGISTRY_INDEX_FILE, withVersion, type RegistryIndex, type RegistryVersion } from '../../src/domain/dependencies/registry-index.js';
import { FetchError, InvalidRegistryError, OutputExistsError } from '../../src/domain/errors.js';

/**
 * A registry in memory: its files by name, `index.json` among them, read as a directory
 * registry reads them (the index parsed and checked on every call). Every reference opens
 * this one registry. A test may put any bytes under any name, a false index included.
 * Kept honest by test/contracts/registry-client.contract.ts.
 */
export class MemoryRegistryClient implements RegistryClient, RegistryClients {
  readonly files = new Map<string, Uint8Array>();
  /** How many fetches were started. */
  fetches = 0;

  constructor(readonly display = 'memory-registry/') {}

  open(): RegistryClient {
    return this;
  }

  async index(): Promise<RegistryIndex> {
    const where = `${this.display}${REGISTRY_INDEX_FILE}`;
    const bytes = this.files.get(REGISTRY_INDEX_FILE);
    if (!bytes) return { packages: {} };
    let raw: unknown;
    try {
      raw = JSON.parse(new TextDecoder().decode(bytes));
    } catch (error) {
      throw new InvalidRegistryError(`${where}: invalid JSON: ${(error as Error).message}`);
    }
    return parseRegistryIndex(raw, where);
  }

  async *fetch(version: RegistryVersion): AsyncIterable<Uint8Array> {
    this.fetches++;
    const bytes = this.files.get(version.file);
    if (!bytes) throw new FetchError(`cannot read ${version.file} from registry ${this.display}: no such file`);
    yield bytes.slice();
  }

  async publish(publication: Publication, data: AsyncIterable<Uint8Array>, options: { overwrite: boolean }): Promise<{ entry: RegistryVersion; published: boolean }> {
    const index = await this.index();
    const { guid, name, version, sha256, size } = publication;
    const known = index.packages[guid]?.versions[version];
    if (known && known.sha256 === sha256 && known.size === size) return { entry: known, published: false };
    if (known && !options.overwrite) throw new OutputExistsError(`${name} ${version} (${guid}) is already in registry ${this.display} with other bytes`);
    // Read whole before anything changes: a stream that throws leaves the registry as it was.
    const chunks: Uint8Array[] = [];
    for await (const chunk of data) chunks.push(chunk);
    const entry = { file: packageFileName(name, version), sha256, size };
    this.files.set(entry.file, Uint8Array.from(Buffer.concat(chunks)));
    this.writeIndex(withVersion(index, guid, name, version, entry));
    return { entry, published: true };
  }

  /** Publishes `bytes` as a version of a package, with a true index entry (a test may then falsify either). */
  add(guid: string, name: string, version: string, bytes: Uint8Array): RegistryVersion {
    const entry = { file: packageFileName(name, version), sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
    this.files.set(entry.file, bytes);
    const current = this.files.has(REGISTRY_INDEX_FILE) ? (JSON.parse(new TextDecoder().decode(this.files.get(REGISTRY_INDEX_FILE))) as RegistryIndex) : { packages: {} };
    this.writeIndex(withVersion(current, guid, name, version, entry));
    return entry;
  }

  private writeIndex(index: RegistryIndex): void {
    this.files.set(REGISTRY_INDEX_FILE, new TextEncoder().encode(JSON.stringify(index, null, 2) + '\n'));
  }
}
