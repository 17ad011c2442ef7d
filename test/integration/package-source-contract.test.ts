import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ZipArchiveWriter } from '../../src/adapters/archive/zip-archive-writer.js';
import { productionOpener } from '../support/production-container.js';
import { describePackageSourceContract } from '../contracts/package-source.contract.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { temporaryDirectory } from '../support/paths.js';
import { CorruptEntryError } from '../../src/domain/errors.js';
import { collect } from '../contracts/subject.js';

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

describe('ZipPackageSource ranges', () => {
  it('reads a range of a stored entry where it lies, without the bytes before it, and leaves a deflated entry to be read from its start', async () => {
    const directory = temporaryDirectory('cap-source-ranges-');
    try {
      const noise = randomBytes(200_000);
      const sink = await new ZipArchiveWriter().create(directory.path, 'ranges.cap', { overwrite: false });
      await sink.add('content/noise.bin', noise, { store: true });
      await sink.add('content/text.txt', Buffer.from('words '.repeat(50_000)), { store: false });
      const { path } = await sink.commit();
      // The stored bytes' first kilobyte spoiled in place: a whole read fails, a range past it does not read it.
      const archive = readFileSync(path);
      const at = archive.indexOf(noise.subarray(0, 64));
      archive.fill(0, at, at + 1024);
      writeFileSync(path, archive);
      const source = await productionOpener().open(path);
      try {
        await expect(source.read('content/noise.bin')).rejects.toThrow(CorruptEntryError);
        expect(Buffer.from(await collect(source.range!('content/noise.bin', 150_000, 199_999)!)).equals(noise.subarray(150_000))).toBe(true);
        expect(source.range!('content/text.txt', 10, 20)).toBeUndefined();
      } finally {
        await source.close();
      }
    } finally {
      directory.remove();
    }
  });
});
