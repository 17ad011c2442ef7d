import { ChecksumMismatchError, InvalidPackageError, PackageNotFoundError, RegistryNotConfiguredError, UnsatisfiableConstraintError, UsageError } from '../../domain/errors.js';
import type { RegistryVersion } from '../../domain/dependencies/registry-index.js';
import { newestSatisfying } from '../../domain/package/version-range.js';
import { readMetadata } from '../package/package-reader.js';
import { verifiedBytes } from '../package/verified-bytes.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener } from '../ports/package-source.js';
import type { PackageStores } from '../ports/package-store.js';
import type { RegistryClient, RegistryClients } from '../ports/registry-client.js';

export interface InstallRequest {
  guid: string;
  /** Semver range; `*` when absent. */
  constraint?: string;
  registry?: string;
  store?: string;
}

export interface Installed {
  guid: string;
  name: string;
  version: string;
  /** The `.cap` in the store. */
  path: string;
  /** False when the store already held that version. */
  downloaded: boolean;
  registry: string;
}

/**
 * `pkg install`: the newest version of a GUID the registry has that satisfies the
 * constraint, downloaded, checked against the index's SHA-256 and size while it
 * streams, and recorded in the store. Bytes that fail the check never reach the store.
 */
export class InstallPackage {
  constructor(
    private readonly registries: RegistryClients,
    private readonly stores: PackageStores,
    private readonly opener: PackageOpener,
    private readonly hasher: Hasher,
  ) {}

  async execute(request: InstallRequest): Promise<Installed> {
    if (request.registry === undefined || request.registry === '') throw new RegistryNotConfiguredError(`no registry to install ${request.guid} from: use --registry or set PKG_REGISTRY`);
    if (request.store === undefined || request.store === '') throw new UsageError(`no store to install ${request.guid} into: use --store or set PKG_STORE`);
    const registry = this.registries.open(request.registry);
    const index = await registry.index();
    // Own keys only: `constructor` is no GUID of the registry's.
    const published = Object.hasOwn(index.packages, request.guid) ? index.packages[request.guid] : undefined;
    if (!published) throw new PackageNotFoundError(`${request.guid} is not in registry ${registry.display}`);
    const constraint = request.constraint ?? '*';
    const versions = Object.keys(published.versions);
    const version = newestSatisfying(versions, constraint);
    if (version === undefined)
      throw new UnsatisfiableConstraintError(`no version of ${request.guid} in registry ${registry.display} satisfies ${constraint}; available: ${versions.join(', ') || 'none'}`, versions);
    return this.installVersion(registry, request.store, { guid: request.guid, name: published.name, version, entry: published.versions[version]! });
  }

  /** The newest version within the constraint that the store already holds, if it holds one. */
  async installed(request: Omit<InstallRequest, 'registry'>): Promise<string | undefined> {
    if (request.store === undefined || request.store === '') return undefined;
    const held = await this.stores.open(request.store).versions(request.guid);
    const version = newestSatisfying(held.map((stored) => stored.version), request.constraint ?? '*');
    return held.find((stored) => stored.version === version)?.path;
  }

  /** One chosen version into the store; a store that holds it already is left alone. */
  async installVersion(registry: RegistryClient, storeDirectory: string, chosen: { guid: string; name: string; version: string; entry: RegistryVersion }): Promise<Installed> {
    const { guid, name, version, entry } = chosen;
    const store = this.stores.open(storeDirectory);
    const outcome = { guid, name, version, registry: registry.display };
    const present = (await store.versions(guid)).find((stored) => stored.version === version);
    if (present) return { ...outcome, path: present.path, downloaded: false };
    const where = `${registry.display}${registry.display.endsWith('/') ? '' : '/'}${entry.file}`;
    const bytes = verifiedBytes(registry.fetch(entry), entry, this.hasher, (found) => {
      const wrong = found.sha256 === undefined || found.size !== entry.size ? `${found.size}${found.sha256 === undefined ? ' or more' : ''} bytes where the registry index says ${entry.size}` : `sha256 ${found.sha256} where the registry index says ${entry.sha256}`;
      return new ChecksumMismatchError(`${where}: ${wrong}; nothing was installed`);
    });
    const stored = await store.install({ guid, name, version }, bytes, (path) => this.checkIdentity(path, { guid, name, version }, where));
    return { ...outcome, path: stored.path, downloaded: true };
  }

  /** The index said what the file is; the file must agree before the store's index names it. */
  private async checkIdentity(path: string, { guid, name, version }: { guid: string; name: string; version: string }, where: string): Promise<void> {
    let metadata;
    const source = await this.opener.open(path).catch((error: Error) => {
      throw new InvalidPackageError(`${where} is not a package: ${error.message}`);
    });
    try {
      metadata = await readMetadata(source).catch((error: Error) => {
        throw new InvalidPackageError(`${where} is not a package: ${error.message}`);
      });
    } finally {
      await source.close();
    }
    // The name too: the store's file is named after it.
    if (metadata.guid !== guid || metadata.version !== version || metadata.name !== name)
      throw new InvalidPackageError(`${where} is ${metadata.guid} ${metadata.name} ${metadata.version}, but the registry index lists it as ${guid} ${name} ${version}`);
  }
}
