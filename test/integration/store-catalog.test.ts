import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FsPackageStores } from '../../src/adapters/fs/fs-package-store.js';
import { StoreCatalog } from '../../src/application/package/store-catalog.js';
import type { PackageOpener, PackageSource } from '../../src/application/ports/package-source.js';
import { LocalPackageOpener } from '../../src/composition/local-package-opener.js';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';

const work = temporaryDirectory('cap-store-catalog-');
const at = (name: string) => join(work.path, name);
afterAll(() => work.remove());

/** Counts the archives opened, to show what the catalog reads again and what it remembers. */
class CountingOpener implements PackageOpener {
  opened: string[] = [];
  private readonly inner = new LocalPackageOpener();
  open(location: string): Promise<PackageSource> {
    this.opened.push(location);
    return this.inner.open(location);
  }
}

let cap: string;
beforeAll(() => {
  expect(runPkg(['package', 'pack', EXAMPLE_SITE, '-o', work.path]).status).toBe(0);
  cap = at('example-site-1.0.0.cap');
});

describe('a store without index.json', () => {
  it('finds a package by the GUID in its .cap, reads each file once, and again only when it changes', async () => {
    const store = at('plain-store');
    mkdirSync(store);
    copyFileSync(cap, join(store, 'example-site-1.0.0.cap'));
    writeFileSync(join(store, 'broken-1.0.0.cap'), 'not a zip');
    const opener = new CountingOpener();
    const catalog = new StoreCatalog(new FsPackageStores(), opener);
    const found = await catalog.open(store).versions('pkg://example.org/example-site');
    expect(found).toEqual([{ version: '1.0.0', path: join(store, 'example-site-1.0.0.cap') }]);
    expect(await catalog.open(store).versions('pkg://example.org/nothing')).toEqual([]);
    expect(opener.opened).toHaveLength(2);
    // A file changed in place (new mtime) is read again.
    utimesSync(join(store, 'example-site-1.0.0.cap'), new Date(), new Date(Date.now() + 5000));
    await catalog.open(store).versions('pkg://example.org/example-site');
    expect(opener.opened).toHaveLength(3);
  });

  it('takes index.json as a hint: a .cap it does not name is found, a file it names that is gone is not', async () => {
    const store = at('hinted-store');
    mkdirSync(store);
    copyFileSync(cap, join(store, 'example-site-1.0.0.cap'));
    writeFileSync(join(store, 'index.json'), JSON.stringify({ 'pkg://example.org/gone': 'gone-2.0.0.cap' }));
    const catalog = new StoreCatalog(new FsPackageStores(), new LocalPackageOpener());
    expect((await catalog.open(store).versions('pkg://example.org/example-site')).map((stored) => stored.version)).toEqual(['1.0.0']);
    expect(await catalog.open(store).versions('pkg://example.org/gone')).toEqual([]);
    writeFileSync(join(store, 'index.json'), '{ not json');
    expect((await catalog.open(store).versions('pkg://example.org/example-site')).map((stored) => stored.version)).toEqual(['1.0.0']);
  });
});
