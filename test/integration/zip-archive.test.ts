import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZipPackageSource } from '../../src/adapters/archive/zip-package-source.js';
import { PackPackage } from '../../src/application/use-cases/pack-package.js';
import { IntegrityError, PackageFormatError, SourceNotFoundError, UnsafeEntryError } from '../../src/domain/errors.js';
import { createContainer } from '../../src/composition/container.js';
import { writeRawZip } from '../support/hostile-zip.js';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';

const container = createContainer();
const pack = container.get(PackPackage);
const work = temporaryDirectory();
let capPath: string;

beforeAll(async () => {
  capPath = (await pack.execute({ source: EXAMPLE_SITE, outputDirectory: join(work.path, 'a'), force: false })).path;
});
afterAll(() => work.remove());

describe('reproducible archives (ZipArchiveWriter)', () => {
  it('gives byte-identical output for the same input', async () => {
    const second = await pack.execute({ source: EXAMPLE_SITE, outputDirectory: join(work.path, 'b'), force: false });
    expect(readFileSync(second.path).equals(readFileSync(capPath))).toBe(true);
  });

  it('is accepted by Info-ZIP unzip -t', () => {
    expect(execFileSync('unzip', ['-t', capPath]).toString()).toMatch(/No errors detected/);
  });

  it('has checksums that sha256sum agrees with', () => {
    const out = join(work.path, 'extracted');
    execFileSync('unzip', ['-q', capPath, '-d', out]);
    const { checksums } = JSON.parse(readFileSync(join(out, 'security.json'), 'utf8')).security.integrityChecks;
    const list = Object.entries(checksums as Record<string, string>).map(([path, digest]) => `${digest}  ${path}\n`).join('');
    writeFileSync(join(work.path, 'SHA256SUMS'), list);
    const result = execFileSync('sha256sum', ['-c', join(work.path, 'SHA256SUMS')], { cwd: out }).toString();
    expect(result.trim().split('\n')).toHaveLength(Object.keys(checksums).length);
    expect(result).not.toMatch(/FAILED/);
  });

  it('stores already-compressed media and deflates text', () => {
    const listing = execFileSync('unzip', ['-v', capPath]).toString();
    expect(listing).toMatch(/Stored .* content\/images\/logo\.png/);
    expect(listing).toMatch(/Defl:N .* content\/index\.html/);
  });
});

describe('ZipPackageSource', () => {
  it('reads entries in place, sorted, with sizes', async () => {
    const source = await ZipPackageSource.open(capPath);
    try {
      expect(source.entries().map((e) => e.path)).toContain('content/index.html');
      expect(source.has('metadata.json')).toBe(true);
      expect(JSON.parse(Buffer.from(await source.read('metadata.json')).toString()).name).toBe('example-site');
      const chunks: Uint8Array[] = [];
      for await (const chunk of source.stream('content/images/logo.png')) chunks.push(chunk);
      expect(Buffer.concat(chunks).equals(readFileSync(join(EXAMPLE_SITE, 'content/images/logo.png')))).toBe(true);
    } finally {
      await source.close();
    }
  });

  it('refuses a file that is not a ZIP', async () => {
    const file = join(work.path, 'not-a-zip.cap');
    writeFileSync(file, 'just text');
    await expect(ZipPackageSource.open(file)).rejects.toBeInstanceOf(PackageFormatError);
    await expect(ZipPackageSource.open(join(work.path, 'absent.cap'))).rejects.toBeInstanceOf(SourceNotFoundError);
  });

  it('refuses duplicate entry names with IntegrityError naming them', async () => {
    const file = join(work.path, 'dup.cap');
    writeRawZip(file, [['metadata.json', '{}'], ['content/a.html', 'one'], ['content/a.html', 'two']]);
    await expect(ZipPackageSource.open(file)).rejects.toThrow(IntegrityError);
    await expect(ZipPackageSource.open(file)).rejects.toThrow(/duplicate entry names: content\/a\.html/);
  });

  it.each([['../evil.txt'], ['/etc/evil'], ['C:/evil'], ['content/../../evil'], ['a\\..\\evil']])('refuses the unsafe entry %j', async (name) => {
    const file = join(work.path, 'slip.cap');
    writeRawZip(file, [['metadata.json', '{}'], [name, 'evil']]);
    await expect(ZipPackageSource.open(file)).rejects.toBeInstanceOf(UnsafeEntryError);
  });
});
