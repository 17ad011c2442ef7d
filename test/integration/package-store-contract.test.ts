import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ZipArchiveWriter } from '../../src/adapters/archive/zip-archive-writer.js';
import { FsStoreDirectories } from '../../src/adapters/fs/fs-store-directory.js';
import { StoreCatalog } from '../../src/application/package/store-catalog.js';
import { productionOpener } from '../support/production-container.js';
import { describePackageStoreContract } from '../contracts/package-store.contract.js';
import { describeStoreDirectoryContract } from '../contracts/store-directory.contract.js';
import { MemoryPackageStore } from '../fakes/memory-package-store.js';
import { MemoryStoreDirectory } from '../fakes/memory-store-directory.js';
import { VALID_METADATA } from '../support/demo-package.js';
import { temporaryDirectory } from '../support/paths.js';

/** A real .cap whose metadata.json names the package: the real store reads it to know what it holds. */
async function capOf(directory: string, pkg: { guid: string; name: string; version: string }): Promise<Uint8Array> {
  const sink = await new ZipArchiveWriter().create(directory, `${pkg.name}-${pkg.version}.cap`, { overwrite: true });
  await sink.add('metadata.json', new TextEncoder().encode(JSON.stringify({ ...VALID_METADATA, ...pkg })), { store: false });
  return readFile((await sink.commit()).path);
}

describePackageStoreContract('MemoryPackageStore (fake)', () => {
  const caps = temporaryDirectory('cap-store-contract-');
  return { store: new MemoryPackageStore(), capOf: (pkg) => capOf(caps.path, pkg), dispose: caps.remove };
});

describePackageStoreContract('StoreCatalog over FsStoreDirectories', () => {
  const work = temporaryDirectory('cap-store-contract-');
  const warnings: string[] = [];
  const catalog = new StoreCatalog(new FsStoreDirectories(), productionOpener(), { warn: (message) => void warnings.push(message) });
  return {
    store: catalog.open(join(work.path, 'store')),
    capOf: (pkg) => capOf(work.path, pkg),
    dispose: () => {
      work.remove();
      // Every file the contract installs is a readable package.
      if (warnings.length > 0) throw new Error(`warned: ${warnings.join('; ')}`);
    },
  };
});

describeStoreDirectoryContract('MemoryStoreDirectory (fake)', () => ({ directory: new MemoryStoreDirectory() }));

describeStoreDirectoryContract('FsStoreDirectory', () => {
  const work = temporaryDirectory('cap-store-contract-');
  return { directory: new FsStoreDirectories().open(join(work.path, 'store')), dispose: work.remove };
});
