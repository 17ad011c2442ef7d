import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FsLocalFiles } from '../../src/adapters/fs/fs-local-files.js';
import { describeLocalFilesContract } from '../contracts/local-files.contract.js';
import { MemoryLocalFiles } from '../fakes/memory-local-files.js';
import { temporaryDirectory } from '../support/paths.js';

describeLocalFilesContract('MemoryLocalFiles (fake)', () => {
  const files = new MemoryLocalFiles();
  return { files, root: '/srv/reactor', write: async (path, content) => void files.write(path, content), remove: async (path) => void files.remove(path) };
});

describeLocalFilesContract('FsLocalFiles', () => {
  const directory = temporaryDirectory('cap-local-files-contract-');
  return {
    files: new FsLocalFiles(),
    root: directory.path,
    write: async (path, content) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    },
    remove: async (path) => rmSync(path),
    dispose: directory.remove,
  };
});
