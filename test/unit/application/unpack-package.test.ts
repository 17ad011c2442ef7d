import { describe, expect, it } from '@jest/globals';
import { NodeHasher } from '../../../src/adapters/crypto/node-hasher.js';
import { UnpackPackage } from '../../../src/application/use-cases/unpack-package.js';
import { IntegrityError, PackageFormatError, UnsafeEntryError } from '../../../src/domain/errors.js';
import { MemoryDirectoryWriter } from '../../fakes/memory-directory-writer.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { demoPackage } from '../../support/demo-package.js';

const hasher = new NodeHasher();
const unpack = (files: Record<string, string | Uint8Array>) => {
  const writer = new MemoryDirectoryWriter();
  const useCase = new UnpackPackage(new MemoryOpener().add('a.cap', files), writer, hasher);
  return { writer, run: () => useCase.execute({ archive: 'a.cap', destination: '/out/a', force: false }) };
};

describe('UnpackPackage', () => {
  it('writes every entry and commits', async () => {
    const { writer, run } = unpack(demoPackage());
    await expect(run()).resolves.toEqual({ destination: '/out/a', files: 4 });
    expect([...writer.committed.get('/out/a')!.keys()]).toEqual(['content/docs/guide.html', 'content/index.html', 'content/style.css', 'metadata.json']);
  });

  it('refuses an unsafe entry before writing anything', async () => {
    const { writer, run } = unpack(demoPackage({ '../../etc/x': 'evil' }));
    await expect(run()).rejects.toBeInstanceOf(UnsafeEntryError);
    expect(writer.drafts).toBe(0);
  });

  it('discards everything when a checksum does not match', async () => {
    const files = demoPackage();
    const checksums = Object.fromEntries(Object.entries(files).map(([p, b]) => [p, hasher.sha256(b)]));
    const { writer, run } = unpack({ ...files, 'content/style.css': 'tampered', 'security.json': JSON.stringify({ security: { integrityChecks: { checksums } } }) });
    await expect(run()).rejects.toThrow(IntegrityError);
    await expect(run()).rejects.toThrow(/checksum mismatch: content\/style\.css/);
    expect(writer.committed.size).toBe(0);
    expect(writer.discarded).toBe(2);
  });

  it('refuses what is not a package (no metadata.json at its root), before writing anything', async () => {
    const wrapped = Object.fromEntries(Object.entries(demoPackage()).map(([path, bytes]) => [`site/${path}`, bytes]));
    const { writer, run } = unpack(wrapped);
    await expect(run()).rejects.toThrow(new PackageFormatError("a.cap has no metadata.json (site/metadata.json is one folder down: a package's files sit at its top, as pkg package pack writes them, not inside a folder as zipping the folder puts them)"));
    expect(writer.drafts).toBe(0);
  });
});
