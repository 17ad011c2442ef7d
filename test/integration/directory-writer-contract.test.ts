import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FsDirectoryWriter } from '../../src/adapters/fs/fs-directory-writer.js';
import { describeDirectoryWriterContract } from '../contracts/directory-writer.contract.js';
import { MemoryDirectoryWriter } from '../fakes/memory-directory-writer.js';
import { temporaryDirectory } from '../support/paths.js';

describeDirectoryWriterContract('MemoryDirectoryWriter (fake)', () => {
  const writer = new MemoryDirectoryWriter();
  return {
    writer,
    root: '/work',
    filesAt: async (directory) => {
      const below = [...writer.committed].flatMap(([target, files]) => [...files].map(([path, data]) => [`${target}/${path}`, data] as const)).filter(([path]) => path.startsWith(`${directory}/`));
      return below.length === 0 ? undefined : Object.fromEntries(below.map(([path, data]) => [path.slice(directory.length + 1), Buffer.from(data).toString()]).sort());
    },
  };
});

describeDirectoryWriterContract('FsDirectoryWriter', () => {
  const work = temporaryDirectory('cap-directory-writer-contract-');
  return {
    writer: new FsDirectoryWriter(),
    root: work.path,
    filesAt: async (directory) => {
      const names = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => undefined);
      if (!names) return undefined;
      // Hidden drafts are not the destination's files: only what a reader of it would take.
      const files = names.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
      const visible = files.filter((file) => !file.slice(directory.length + 1).split('/').some((part) => part.startsWith('.')));
      return Object.fromEntries(await Promise.all(visible.sort().map(async (file) => [file.slice(directory.length + 1), await readFile(file, 'utf8')] as const)));
    },
    dispose: work.remove,
  };
});
