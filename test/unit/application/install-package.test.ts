import { describe, expect, it } from '@jest/globals';
import { NodeHasher } from '../../../src/adapters/crypto/node-hasher.js';
import { InstallPackage } from '../../../src/application/use-cases/install-package.js';
import { ChecksumMismatchError, InvalidPackageError, PackageNotFoundError, RegistryNotConfiguredError, UnsatisfiableConstraintError, UsageError } from '../../../src/domain/errors.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { MemoryPackageStore } from '../../fakes/memory-package-store.js';
import { PARTIAL } from '../../fakes/memory-store-directory.js';
import { MemoryRegistryClient } from '../../fakes/memory-registry-client.js';
import { VALID_METADATA } from '../../support/demo-package.js';

const hasher = new NodeHasher();
const GUID = VALID_METADATA.guid;

function setup(versions: string[]) {
  const registry = new MemoryRegistryClient();
  for (const version of versions) registry.add(GUID, 'demo-site', version, new TextEncoder().encode(`package ${version}`));
  const store = new MemoryPackageStore();
  // What the store's files hold, where install's check opens them.
  const opener = new MemoryOpener();
  // Checked where the bytes lie before they take their name.
  for (const version of versions) opener.add(`${store.location}/demo-site-${version}.cap${PARTIAL}`, { 'metadata.json': JSON.stringify({ ...VALID_METADATA, version }) });
  return { registry, store, opener, install: new InstallPackage(registry, store, opener, hasher) };
}

describe('InstallPackage', () => {
  it('installs the newest version within the constraint, once', async () => {
    const { install, store, registry } = setup(['1.0.0', '1.2.3', '2.0.0']);
    expect(await install.execute({ guid: GUID, constraint: '>=1.0.0, <2', registry: 'r', store: 's' })).toMatchObject({ version: '1.2.3', downloaded: true });
    expect(await install.execute({ guid: GUID, constraint: '^1', registry: 'r', store: 's' })).toMatchObject({ version: '1.2.3', downloaded: false });
    expect(await store.installed(GUID)).toEqual(['1.2.3']);
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
    expect(await store.installed(GUID)).toEqual([]);
  });

  it('refuses a file that is another package than the index says', async () => {
    const { install, store, opener } = setup(['1.0.0']);
    opener.add(`${store.location}/demo-site-1.0.0.cap${PARTIAL}`, { 'metadata.json': JSON.stringify({ ...VALID_METADATA, version: '9.9.9' }) });
    await expect(install.execute({ guid: GUID, registry: 'r', store: 's' })).rejects.toThrow(InvalidPackageError);
    expect(await store.installed(GUID)).toEqual([]);
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
