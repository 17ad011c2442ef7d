import { readFile } from 'node:fs/promises';
import { ZipArchiveWriter } from '../../src/adapters/archive/zip-archive-writer.js';
import { ZipPackageSource } from '../../src/adapters/archive/zip-package-source.js';
import { describeArchiveWriterContract, entryTexts } from '../contracts/archive-writer.contract.js';
import { MemoryArchiveWriter, decodeMemoryArchive } from '../fakes/memory-archive-writer.js';
import { temporaryDirectory } from '../support/paths.js';

describeArchiveWriterContract('MemoryArchiveWriter (fake)', () => {
  const writer = new MemoryArchiveWriter();
  return {
    writer,
    directory: '/out',
    bytesAt: async (path) => writer.bytes(path),
    // Read from the bytes, not from the writer's bookkeeping: the bytes are the archive.
    entriesOf: async (path) => entryTexts(decodeMemoryArchive(writer.bytes(path)!).map((entry) => [entry.path, entry.bytes] as const)),
  };
});

describeArchiveWriterContract('ZipArchiveWriter', () => {
  const directory = temporaryDirectory('cap-archive-contract-');
  return {
    writer: new ZipArchiveWriter(),
    directory: directory.path,
    bytesAt: (path) => readFile(path).catch(() => undefined),
    entriesOf: async (path) => {
      const source = await ZipPackageSource.open(path);
      try {
        return entryTexts(await Promise.all(source.entries().map(async ({ path }) => [path, await source.read(path)] as const)));
      } finally {
        await source.close();
      }
    },
    dispose: directory.remove,
  };
});
