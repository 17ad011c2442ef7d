import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ZipArchiveWriter } from '../../src/adapters/archive/zip-archive-writer.js';
import { productionOpener } from '../support/production-container.js';
import { describePackageSourceContract } from '../contracts/package-source.contract.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { temporaryDirectory } from '../support/paths.js';

describePackageSourceContract('MemoryOpener (fake)', () => {
  const opener = new MemoryOpener();
  let count = 0;
  return {
    opener,
    put: async (files) => {
      const location = `memory-${++count}`;
      opener.add(location, files);
      return location;
    },
    missing: 'memory-nothing',
  };
});

describePackageSourceContract('LocalPackageOpener on a .cap (ZipPackageSource)', () => {
  const directory = temporaryDirectory('cap-source-contract-');
  let count = 0;
  return {
    opener: productionOpener(),
    put: async (files) => {
      const sink = await new ZipArchiveWriter().create(directory.path, `package-${++count}.cap`, { overwrite: false });
      for (const [path, data] of Object.entries(files)) await sink.add(path, data, { store: false });
      return (await sink.commit()).path;
    },
    missing: join(directory.path, 'nothing.cap'),
    dispose: directory.remove,
  };
});

describePackageSourceContract('LocalPackageOpener on a directory (DirectoryPackageSource)', () => {
  const directory = temporaryDirectory('cap-source-contract-');
  let count = 0;
  return {
    opener: productionOpener(),
    put: async (files) => {
      const root = join(directory.path, `package-${++count}`);
      mkdirSync(root);
      for (const [path, data] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), data);
      }
      return root;
    },
    missing: join(directory.path, 'nothing'),
    dispose: directory.remove,
  };
});
