import { describe, expect, it } from '@jest/globals';
import { MemoryArchiveWriter } from '../../fakes/memory-archive-writer.js';
import { NodeHasher } from '../../../src/adapters/crypto/node-hasher.js';
import { PackPipeline } from '../../../src/application/package/pack-pipeline.js';
import { PackPackage } from '../../../src/application/use-cases/pack-package.js';
import { normalizeSecurity } from '../../../src/domain/integrity/security.js';
import { ConfigValidationError, OutputExistsError, PackageFormatError, UnsafeEntryError } from '../../../src/domain/errors.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { demoPackage } from '../../support/demo-package.js';

const setup = (files: Record<string, string | Uint8Array>) => {
  const writer = new MemoryArchiveWriter();
  const hasher = new NodeHasher();
  const pipeline = new PackPipeline(writer, hasher);
  const pack = new PackPackage(new MemoryOpener().add('pkg', files), pipeline);
  const run = (force = false) => pack.execute({ source: 'pkg', outputDirectory: '/out', force });
  const archive = () => writer.archives.get('/out/demo-site-1.2.3.cap')!;
  const entry = (path: string) => JSON.parse(Buffer.from(archive().entries.find((e) => e.path === path)!.bytes).toString());
  return { run, archive, entry, hasher, pipeline };
};

describe('PackPackage', () => {
  it('writes <name>-<version>.cap with generated manifest and routes and a checksum for every file', async () => {
    const { run, archive, entry, hasher } = setup(demoPackage());
    const result = await run();
    expect(result).toMatchObject({ name: 'demo-site', version: '1.2.3', generated: ['manifest.json', 'routes.json'], path: '/out/demo-site-1.2.3.cap' });
    const paths = archive().entries.map((e) => e.path);
    expect(paths).toEqual(['content/docs/guide.html', 'content/index.html', 'content/style.css', 'manifest.json', 'metadata.json', 'routes.json', 'security.json']);
    const checksums = entry('security.json').security.integrityChecks.checksums;
    expect(entry('security.json').security.integrityChecks.checksumAlgorithm).toBe('SHA-256');
    expect(Object.keys(checksums)).toEqual(paths.slice(0, -1));
    for (const e of archive().entries.slice(0, -1)) expect(checksums[e.path]).toBe(hasher.sha256(e.bytes));
    expect(entry('manifest.json')['content/style.css']).toEqual({ type: 'text/css', visibility: 'exported' });
    expect(entry('routes.json').index).toBe('content/index.html');
  });

  it('refuses a tombstones file the reactor would refuse, and packs one it reads', async () => {
    await expect(setup(demoPackage({ 'content/.pkg-tombstones': '{"docs/guide.html": true}' })).run()).rejects.toThrow(ConfigValidationError);
    await expect(setup(demoPackage({ 'content/.pkg-tombstones': '"abc"' })).run()).rejects.toThrow(/content\/\.pkg-tombstones.*must be a JSON array of content-relative paths/);
    const { run, archive } = setup(demoPackage({ 'content/.pkg-tombstones': '["docs/guide.html"]' }));
    await run();
    expect(archive().entries.map((e) => e.path)).toContain('content/.pkg-tombstones');
  });

  it('writes hand-written manifest and routes in their canonical form and drops stale signing artifacts and security.json', async () => {
    const { run, archive, entry } = setup(
      demoPackage({
        'manifest.json': JSON.stringify({ content: [{ file: 'content/index.html', mime: 'text/html' }] }),
        'routes.json': JSON.stringify({ routes: [{ path: '/', resource: 'content/index.html' }] }),
        'signature.sig': 'old',
        'signature.pub.pem': 'old',
        'security.json': '{"security":{}}',
      }),
    );
    const result = await run();
    expect(result.generated).toEqual([]);
    const paths = archive().entries.map((e) => e.path);
    expect(paths).not.toContain('signature.sig');
    expect(paths).not.toContain('signature.pub.pem');
    expect(paths.filter((p) => p === 'security.json')).toHaveLength(1);
    expect(entry('security.json').security.digitalSignatures).toBeUndefined();
    // A legacy manifest goes into the archive in the form SPEC.md describes; the source is not touched.
    expect(entry('manifest.json')).toEqual({ 'content/index.html': { type: 'text/html', visibility: 'exported' } });
    expect(entry('routes.json')).toEqual({ routes: [{ path: '/', resource: 'content/index.html' }] });
  });

  it('gives a file named __proto__ its checksum like any other, and reads it back', async () => {
    const { run, entry, hasher } = setup(Object.fromEntries([...Object.entries(demoPackage()), ['__proto__', 'odd but allowed']]));
    await run();
    const checksums = entry('security.json').security.integrityChecks.checksums as Record<string, string>;
    expect(Object.hasOwn(checksums, '__proto__')).toBe(true);
    expect(checksums['__proto__']).toBe(hasher.sha256('odd but allowed'));
    // Read back out of order, so the checksums are copied: the copy keeps it too.
    const shuffled = JSON.parse(`{"security":{"integrityChecks":{"checksums":{"z":"${'a'.repeat(64)}","__proto__":"${checksums['__proto__']}"}}}}`);
    expect(Object.hasOwn(normalizeSecurity(shuffled).checksums, '__proto__')).toBe(true);
  });

  it('stores already-compressed media and deflates the rest', async () => {
    const { run, archive } = setup(demoPackage({ 'content/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47]) }));
    await run();
    expect(archive().entries.find((e) => e.path === 'content/logo.png')!.store).toBe(true);
    expect(archive().entries.find((e) => e.path === 'content/index.html')!.store).toBe(false);
  });

  it('refuses to overwrite without force', async () => {
    const { run } = setup(demoPackage());
    await run();
    await expect(run()).rejects.toBeInstanceOf(OutputExistsError);
    await expect(run(true)).resolves.toMatchObject({ name: 'demo-site' });
  });

  it('fails with a typed error without metadata.json', async () => {
    const files = demoPackage();
    delete files['metadata.json'];
    await expect(setup(files).run()).rejects.toBeInstanceOf(PackageFormatError);
  });

  it('refuses entry names that escape the archive', async () => {
    const { pipeline } = setup(demoPackage());
    await expect(pipeline.write([{ path: '../evil', data: new Uint8Array() }], { directory: '/out', fileName: 'x.cap', overwrite: false })).rejects.toBeInstanceOf(UnsafeEntryError);
  });
});
