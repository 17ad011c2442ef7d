import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZipPackageSource } from '../../src/adapters/archive/zip-package-source.js';
import type { PackageSource } from '../../src/application/ports/package-source.js';
import type { PackageVerifier } from '../../src/application/ports/package-verifier.js';
import { ProcessVerifier } from '../../src/adapters/system/process-verifier.js';
import { ShownAsSource } from '../../src/application/package/shown-as-source.js';
import { USE_CASE } from '../../src/composition/service-ids.js';
import { normalizeSecurity, type IntegrityReport, type Security } from '../../src/domain/integrity/security.js';
import { EXAMPLE_SITE, ROOT, temporaryDirectory } from '../support/paths.js';
import { productionContainer } from '../support/production-container.js';

// The built child entry (npm test builds first): from source there is no child to start.
const CHILD = new URL(`file://${join(ROOT, 'dist/verify-process.js')}`);
const work = temporaryDirectory();
let capPath: string;
let checksums: Record<string, string>;

/** A fallback that records being asked, so a test can tell the child's answer from its own. */
class RecordingVerifier implements PackageVerifier {
  calls = 0;
  constructor(private readonly answer: (source: PackageSource) => Promise<IntegrityReport>) {}
  verify(source: PackageSource): Promise<IntegrityReport> {
    this.calls++;
    return this.answer(source);
  }
}

const never = new RecordingVerifier(() => Promise.reject(new Error('the fallback should not run')));

beforeAll(async () => {
  const container = productionContainer();
  capPath = (await container.get(USE_CASE.PackPackage).execute({ source: EXAMPLE_SITE, outputDirectory: work.path, force: false })).path;
  const source = await ZipPackageSource.open(capPath);
  try {
    checksums = normalizeSecurity(JSON.parse(Buffer.from(await source.read('security.json')).toString())).checksums;
  } finally {
    await source.close();
  }
});
afterAll(() => work.remove());

async function verifyCap(verifier: PackageVerifier, security: Security, path = capPath): Promise<IntegrityReport> {
  const source = await ZipPackageSource.open(path);
  try {
    return await verifier.verify(source, security);
  } finally {
    await source.close();
  }
}

describe('ProcessVerifier', () => {
  it('verifies an intact package in a child process', async () => {
    const fallback = new RecordingVerifier(never.verify.bind(never));
    const report = await verifyCap(new ProcessVerifier(fallback, CHILD, 0), { checksums });
    expect(report).toEqual({ mismatched: [], missing: [], uncovered: [] });
    expect(fallback.calls).toBe(0);
  });

  it('reports what the child finds wrong: a changed digest, a file not there, a file not covered', async () => {
    const { ['content/index.html']: _covered, ...rest } = checksums;
    const declared = { ...rest, 'content/about.html': '0'.repeat(64), 'content/gone.html': '1'.repeat(64) };
    const report = await verifyCap(new ProcessVerifier(never, CHILD, 0), { checksums: declared });
    expect(report.mismatched).toEqual(['content/about.html']);
    expect(report.missing).toEqual(['content/gone.html']);
    expect(report.uncovered).toEqual(['content/index.html']);
    expect(never.calls).toBe(0);
  });

  it('has the child read a package named by another location from its own path: a decrypted package, named by the encrypted one', async () => {
    const source = await ZipPackageSource.open(capPath);
    try {
      const shown = new ShownAsSource(source, join(work.path, 'site-encrypted.cap'));
      expect(await new ProcessVerifier(never, CHILD, 0).verify(shown, { checksums })).toEqual({ mismatched: [], missing: [], uncovered: [] });
      expect(never.calls).toBe(0);
    } finally {
      await source.close();
    }
  });

  it('falls back to verifying in process when the child fails (here: the package became unreadable)', async () => {
    const source = await ZipPackageSource.open(capPath);
    const moved = join(work.path, 'moved.cap');
    writeFileSync(moved, 'no longer a zip');
    const fallback = new RecordingVerifier(() => Promise.resolve({ mismatched: ['from the fallback'], missing: [], uncovered: [] }));
    try {
      const gone = Object.assign(Object.create(source) as PackageSource, { location: moved });
      expect((await new ProcessVerifier(fallback, CHILD, 0).verify(gone, { checksums })).mismatched).toEqual(['from the fallback']);
      expect(fallback.calls).toBe(1);
    } finally {
      await source.close();
    }
  });

  it('verifies a package smaller than its limit in process, without starting a child', async () => {
    const fallback = new RecordingVerifier(() => Promise.resolve({ mismatched: ['from the fallback'], missing: [], uncovered: [] }));
    const small = await verifyCap(new ProcessVerifier(fallback, CHILD), { checksums });
    expect(small.mismatched).toEqual(['from the fallback']);
    expect(fallback.calls).toBe(1);
  });

  it('verifies in process when there is no built child', async () => {
    const fallback = new RecordingVerifier(() => Promise.resolve({ mismatched: [], missing: [], uncovered: [] }));
    await verifyCap(new ProcessVerifier(fallback, new URL(`file://${join(work.path, 'absent.js')}`)), { checksums });
    expect(fallback.calls).toBe(1);
  });
});
