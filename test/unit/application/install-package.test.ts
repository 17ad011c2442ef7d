import { describe, expect, it } from '@jest/globals';
import { NodeHasher } from '../../../src/adapters/crypto/node-hasher.js';
import { InstallPackage } from '../../../src/application/use-cases/install-package.js';
import type { PackageStore, PackageStores, StoredPackage } from '../../../src/application/ports/package-store.js';
import type { RegistryClient, RegistryClients } from '../../../src/application/ports/registry-client.js';
import type { RegistryIndex, RegistryVersion } from '../../../src/domain/dependencies/registry-index.js';
import { ChecksumMismatchError, InvalidPackageError, PackageNotFoundError, RegistryNotConfiguredError, UnsatisfiableConstraintError, UsageError } from '../../../src/domain/errors.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { VALID_METADATA } from '../../support/demo-package.js';

const hasher = new NodeHasher();
const GUID = VALID_METADATA.guid;

/** A registry in memory: file name -> bytes, and the index describing them (which a test may falsify). */
class MemoryRegistry implements RegistryClient, RegistryClients {
  readonly display = 'memory-registry/';
  readonly files = new Map<string, Uint8Array>();
  index_: RegistryIndex = { packages: {} };
  fetches = 0;
  open(): RegistryClient {
    return this;
  }
  async index() {
    return this.index_;
  }
  async *fetch(version: RegistryVersion) {
    this.fetches++;
    yield this.files.get(version.file)!;
  }
  add(version: string, bytes = new TextEncoder().encode(`package ${version}`)) {
    const file = `demo-site-${version}.cap`;
    this.files.set(file, bytes);
    const current = this.index_.packages[GUID] ?? { name: 'demo-site', versions: {} };
    current.versions[version] = { file, sha256: hasher.sha256(bytes), size: bytes.length };
    this.index_.packages[GUID] = current;
    return this;
  }
}

/** A store in memory: every install is kept only if its stream ends cleanly and its check passes. */
class MemoryStore implements PackageStore, PackageStores {
  readonly location = 'memory-store';
  readonly installed = new Map<string, StoredPackage>();
  open() {
    return this;
  }
  async versions() {
    return [...this.installed.values()];
  }
  async index() {
    return {};
  }
  async install(entry: { guid: string; name: string; version: string }, data: AsyncIterable<Uint8Array>, check?: (path: string) => Promise<void>) {
    for await (const chunk of data) void chunk;
    const stored = { version: entry.version, path: `${entry.name}-${entry.version}` };
    await check?.(stored.path);
    this.installed.set(entry.version, stored);
    return stored;
  }
}

function setup(versions: string[]) {
  const registry = new MemoryRegistry();
  for (const version of versions) registry.add(version);
  const store = new MemoryStore();
  const opener = new MemoryOpener();
  for (const version of versions) opener.add(`demo-site-${version}`, { 'metadata.json': JSON.stringify({ ...VALID_METADATA, version }) });
  return { registry, store, opener, install: new InstallPackage(registry, store, opener, hasher) };
}

describe('InstallPackage', () => {
  it('installs the newest version within the constraint, once', async () => {
    const { install, store, registry } = setup(['1.0.0', '1.2.3', '2.0.0']);
    expect(await install.execute({ guid: GUID, constraint: '>=1.0.0, <2', registry: 'r', store: 's' })).toMatchObject({ version: '1.2.3', downloaded: true });
    expect(await install.execute({ guid: GUID, constraint: '^1', registry: 'r', store: 's' })).toMatchObject({ version: '1.2.3', downloaded: false });
    expect([...store.installed.keys()]).toEqual(['1.2.3']);
    expect(registry.fetches).toBe(1);
  });

  it('keeps nothing whose sha256 or size is not the index\'s', async () => {
    const { install, store, registry } = setup(['1.0.0']);
    registry.files.set('demo-site-1.0.0.cap', new TextEncoder().encode('package 1.0.X'));
    await expect(install.execute({ guid: GUID, registry: 'r', store: 's' })).rejects.toThrow(
      new ChecksumMismatchError(`memory-registry/demo-site-1.0.0.cap: sha256 ${hasher.sha256('package 1.0.X')} where the registry index says ${hasher.sha256('package 1.0.0')}; nothing was installed`),
    );
    registry.files.set('demo-site-1.0.0.cap', new TextEncoder().encode('package 1.0.0 and more'));
    await expect(install.execute({ guid: GUID, registry: 'r', store: 's' })).rejects.toThrow(/22 or more bytes where the registry index says 13; nothing was installed/);
    expect(store.installed.size).toBe(0);
  });

  it('refuses a file that is another package than the index says', async () => {
    const { install, store, opener } = setup(['1.0.0']);
    opener.add('demo-site-1.0.0', { 'metadata.json': JSON.stringify({ ...VALID_METADATA, version: '9.9.9' }) });
    await expect(install.execute({ guid: GUID, registry: 'r', store: 's' })).rejects.toThrow(InvalidPackageError);
    expect(store.installed.size).toBe(0);
  });

  it('names what is missing', async () => {
    const { install } = setup(['1.0.0', '1.1.0']);
    await expect(install.execute({ guid: GUID, store: 's' })).rejects.toThrow(RegistryNotConfiguredError);
    await expect(install.execute({ guid: GUID, registry: 'r' })).rejects.toThrow(UsageError);
    await expect(install.execute({ guid: 'pkg://example.org/other', registry: 'r', store: 's' })).rejects.toThrow(PackageNotFoundError);
    const failure = (await install.execute({ guid: GUID, constraint: '^2', registry: 'r', store: 's' }).catch((error: unknown) => error)) as UnsatisfiableConstraintError;
    expect(failure).toBeInstanceOf(UnsatisfiableConstraintError);
    expect(failure.available).toEqual(['1.0.0', '1.1.0']);
    expect(failure.message).toBe(`no version of ${GUID} in registry memory-registry/ satisfies ^2; available: 1.0.0, 1.1.0`);
  });
});
