import { afterAll, describe, expect, it } from '@jest/globals';
import { servedText as text } from '../support/composite-fixtures.js';
import fc from 'fast-check';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { PORT, SERVICE, USE_CASE } from '../../src/composition/service-ids.js';
import type { LoadOptions } from '../../src/application/serving/load-package.js';
import { StoreCatalog } from '../../src/application/package/store-catalog.js';
import type { PackageOpener, PackageSource } from '../../src/application/ports/package-source.js';
import { FsStoreDirectories } from '../../src/adapters/fs/fs-store-directory.js';
import { DirectoryRegistryClient } from '../../src/adapters/fs/directory-registry-client.js';
import { ZipPackageSource } from '../../src/adapters/archive/zip-package-source.js';
import { LIB_GUID, writeCompositeFixtures } from '../support/composite-fixtures.js';
import { writeRawZip } from '../support/hostile-zip.js';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { productionContainer, productionOpener, swap } from '../support/production-container.js';

const work = temporaryDirectory('cap-store-catalog-');
afterAll(() => work.remove());
const warned: string[] = [];
const container = productionContainer(swap(PORT.Warnings, { warn: (message: string) => void warned.push(message) }));
const loader = container.get(SERVICE.LoadPackage);
const packer = container.get(USE_CASE.PackPackage);
const fixtures = writeCompositeFixtures(join(work.path, 'src'));
const caps = join(work.path, 'caps');
mkdirSync(caps, { recursive: true });
const packed: Record<string, string> = {};
for (const [version, source] of Object.entries(fixtures.lib)) packed[version] = (await packer.execute({ source, outputDirectory: caps, force: true })).path;

/** A store directory holding copies of these packed `.cap` files under the names given, and nothing else. */
function storeOf(name: string, files: Record<string, string>): string {
  const directory = join(work.path, 'stores', name);
  mkdirSync(directory, { recursive: true });
  for (const [file, cap] of Object.entries(files)) copyFileSync(cap, join(directory, file));
  return directory;
}

const load = (location: string, packages: LoadOptions['packages']) => loader.execute(location, { cacheControl: 'no-cache', packages });

async function served(location: string, store: string, path: string): Promise<string | 404> {
  const pkg = await load(location, { store });
  try {
    return await text(pkg, path);
  } finally {
    await pkg.source.close();
  }
}

/** Opens `.cap` files as the CLI does, counting each open. */
class CountingOpener implements PackageOpener {
  readonly opened: string[] = [];
  private readonly opener = productionOpener();
  async open(location: string): Promise<PackageSource> {
    this.opened.push(location);
    return this.opener.open(location);
  }
}

describe('a store without index.json', () => {
  it('resolves a composite package from .cap files alone, whatever they are called', async () => {
    const store = storeOf('no-index', { 'ui-lib-1.0.0.cap': packed['1.0.0']!, 'lib-newest.cap': packed['1.4.0']!, 'ui-lib-2.0.0.cap': packed['2.0.0']! });
    expect(await served(fixtures.site, store, '/lib.css')).toBe('v1.4 style\n');
    const bundled = await packer.execute({ source: fixtures.site, outputDirectory: join(work.path, 'bundled'), force: true, bundle: { store } });
    expect(bundled.bundled).toEqual([{ guid: LIB_GUID, version: '1.4.0', file: 'packages/ui-lib-1.4.0.cap' }]);
    const bundle = await ZipPackageSource.open(bundled.path);
    expect(Buffer.from(await bundle.read('packages/ui-lib-1.4.0.cap')).equals(readFileSync(packed['1.4.0']!))).toBe(true);
    await bundle.close();
    expect(readdirSync(store)).not.toContain('index.json');
  });

  it('takes index.json as a hint: a .cap it does not list counts, an entry whose file is gone is ignored, a broken one is no obstacle', async () => {
    const stale = storeOf('stale-index', { 'ui-lib-1.0.0.cap': packed['1.0.0']!, 'ui-lib-1.4.0.cap': packed['1.4.0']! });
    writeFileSync(join(stale, 'index.json'), JSON.stringify({ [LIB_GUID]: 'ui-lib-1.3.0.cap' }));
    expect(await served(fixtures.site, stale, '/lib.css')).toBe('v1.4 style\n');
    const broken = storeOf('broken-index', { 'ui-lib-1.4.0.cap': packed['1.4.0']! });
    writeFileSync(join(broken, 'index.json'), '{"half');
    expect(await served(fixtures.site, broken, '/lib.css')).toBe('v1.4 style\n');
  });

  it('skips a .cap it cannot read (not a ZIP, an escaping entry name, no metadata) with a warning, and serves from the rest', async () => {
    const store = storeOf('with-junk', { 'ui-lib-1.4.0.cap': packed['1.4.0']! });
    writeFileSync(join(store, 'ui-lib-1.9.0.cap'), 'not a zip at all');
    writeRawZip(join(store, 'escape-1.0.0.cap'), [['metadata.json', readFileSync(join(fixtures.lib['1.0.0']!, 'metadata.json'), 'utf8')], ['../outside.txt', 'x']]);
    writeRawZip(join(store, 'bare-1.0.0.cap'), [['content/a.txt', 'a']]);
    mkdirSync(join(store, 'a-directory.cap'));
    warned.length = 0;
    expect(await served(fixtures.site, store, '/lib.css')).toBe('v1.4 style\n');
    expect(warned.sort()).toEqual([
      expect.stringMatching(/^store .*with-junk: skipped bare-1\.0\.0\.cap: PackageFormatError: .*has no metadata\.json/),
      expect.stringMatching(/^store .*with-junk: skipped escape-1\.0\.0\.cap: UnsafeEntryError: /),
      expect.stringMatching(/^store .*with-junk: skipped ui-lib-1\.9\.0\.cap: PackageFormatError: /),
    ]);
    // Known by identity: loading again warns no more.
    expect(await served(fixtures.site, store, '/lib.css')).toBe('v1.4 style\n');
    expect(warned).toHaveLength(3);
  });

  it('reads each .cap once while its device, inode, size and modification time stay the same', async () => {
    const directory = storeOf('identity', { 'ui-lib-1.0.0.cap': packed['1.0.0']!, 'ui-lib-1.4.0.cap': packed['1.4.0']! });
    const opener = new CountingOpener();
    const store = new StoreCatalog(new FsStoreDirectories(), opener, { warn: () => undefined }).open(directory);
    const versions = async () => (await store.versions(LIB_GUID)).map(({ version }) => version);
    expect(await versions()).toEqual(['1.0.0', '1.4.0']);
    expect(opener.opened).toHaveLength(2);
    expect(await versions()).toEqual(['1.0.0', '1.4.0']);
    expect(opener.opened).toHaveLength(2);
    // A new modification time is a new identity, even for the same bytes.
    utimesSync(join(directory, 'ui-lib-1.0.0.cap'), new Date(), new Date(Date.now() + 5_000));
    await versions();
    expect(opener.opened.slice(2)).toEqual([join(directory, 'ui-lib-1.0.0.cap')]);
    // Replaced by rename (a new inode), now holding another version.
    copyFileSync(packed['2.0.0']!, join(directory, '.incoming'));
    renameSync(join(directory, '.incoming'), join(directory, 'ui-lib-1.4.0.cap'));
    expect(await versions()).toEqual(['1.0.0', '2.0.0']);
    expect(opener.opened.slice(3)).toEqual([join(directory, 'ui-lib-1.4.0.cap')]);
    rmSync(join(directory, 'ui-lib-1.0.0.cap'));
    expect(await versions()).toEqual(['2.0.0']);
    expect(opener.opened).toHaveLength(4);
  });

  it('does not download a version the store holds under another name, and install still writes index.json', async () => {
    const store = storeOf('install', { 'copied.cap': packed['1.4.0']! });
    const registryDirectory = join(work.path, 'registries/install');
    const registry = new DirectoryRegistryClient(registryDirectory);
    for (const version of ['1.4.0', '2.0.0']) {
      const bytes = readFileSync(packed[version]!);
      await registry.publish({ guid: LIB_GUID, name: 'ui-lib', version, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length }, (async function* () {
        yield bytes;
      })(), { overwrite: false });
    }
    const installer = container.get(USE_CASE.InstallPackage);
    expect(await installer.execute({ guid: LIB_GUID, constraint: '1.4.0', registry: registryDirectory, store })).toMatchObject({ downloaded: false, path: join(store, 'copied.cap') });
    expect(readdirSync(store)).toEqual(['copied.cap']);
    writeFileSync(join(store, 'index.json'), '{"half');
    expect(await installer.execute({ guid: LIB_GUID, registry: registryDirectory, store })).toMatchObject({ downloaded: true, version: '2.0.0' });
    expect(JSON.parse(readFileSync(join(store, 'index.json'), 'utf8'))).toEqual({ [LIB_GUID]: 'ui-lib-2.0.0.cap' });
  });
});

describe('a store holding bytes from strangers', () => {
  it('never fails a lookup over a .cap it cannot read: random bytes and cut-off archives are skipped, the good file is found', async () => {
    const good = readFileSync(packed['1.4.0']!);
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 2048 }), fc.integer({ min: 0, max: good.length - 1 }).map((end) => good.subarray(0, end))), async (bytes) => {
        const directory = storeOf(`strangers-${round++}`, { 'ui-lib-1.4.0.cap': packed['1.4.0']! });
        writeFileSync(join(directory, 'ui-lib-1.5.0.cap'), bytes);
        const seen: string[] = [];
        const store = new StoreCatalog(new FsStoreDirectories(), productionOpener(), { warn: (message) => void seen.push(message) }).open(directory);
        expect((await store.versions(LIB_GUID)).map(({ version }) => version)).toEqual(['1.4.0']);
        expect(seen).toEqual([expect.stringContaining('skipped ui-lib-1.5.0.cap: ')]);
      }),
      { numRuns: 40 },
    );
  });
});

describe('a store of the example site', () => {
  const at = (name: string) => join(work.path, name);
  const newCatalog = (opener = productionOpener()) => new StoreCatalog(new FsStoreDirectories(), opener, { warn: () => undefined });
  let cap: string;
  it('finds a package by the GUID in its .cap, reads each file once, and again only when it changes', async () => {
    cap = (await packer.execute({ source: EXAMPLE_SITE, outputDirectory: at('example'), force: true })).path;
    const store = at('plain-store');
    mkdirSync(store);
    copyFileSync(cap, join(store, 'example-site-1.0.0.cap'));
    writeFileSync(join(store, 'broken-1.0.0.cap'), 'not a zip');
    const opener = new CountingOpener();
    const catalog = newCatalog(opener);
    expect(await catalog.open(store).versions('pkg://example.org/example-site')).toEqual([{ version: '1.0.0', path: join(store, 'example-site-1.0.0.cap') }]);
    expect(await catalog.open(store).versions('pkg://example.org/nothing')).toEqual([]);
    expect(opener.opened).toHaveLength(2);
    utimesSync(join(store, 'example-site-1.0.0.cap'), new Date(), new Date(Date.now() + 5000));
    await catalog.open(store).versions('pkg://example.org/example-site');
    expect(opener.opened).toHaveLength(3);
  });

  it('takes index.json as a hint: a .cap it does not name is found, a file it names that is gone is not', async () => {
    const store = at('hinted-store');
    mkdirSync(store);
    copyFileSync(cap, join(store, 'example-site-1.0.0.cap'));
    writeFileSync(join(store, 'index.json'), JSON.stringify({ 'pkg://example.org/gone': 'gone-2.0.0.cap' }));
    const catalog = newCatalog();
    expect((await catalog.open(store).versions('pkg://example.org/example-site')).map((stored) => stored.version)).toEqual(['1.0.0']);
    expect(await catalog.open(store).versions('pkg://example.org/gone')).toEqual([]);
    writeFileSync(join(store, 'index.json'), '{ not json');
    expect((await catalog.open(store).versions('pkg://example.org/example-site')).map((stored) => stored.version)).toEqual(['1.0.0']);
  });
});
