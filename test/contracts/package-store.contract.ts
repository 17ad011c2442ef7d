import { describe, expect, it } from '@jest/globals';
import type { PackageStore } from '../../src/application/ports/package-store.js';
import { chunks, eachSubject, failing, type Subject } from './subject.js';

export interface PackageStoreSubject {
  store: PackageStore;
  /** The bytes of a `.cap` whose metadata.json names this package. */
  capOf(pkg: { guid: string; name: string; version: string }): Promise<Uint8Array>;
}

const LIB = { guid: 'pkg://example.org/lib', name: 'lib' };
const OTHER = { guid: 'pkg://example.org/other', name: 'other' };
const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The promises of the PackageStore port (src/application/ports/package-store.ts). */
export function describePackageStoreContract(name: string, makeSubject: () => Promise<Subject<PackageStoreSubject>> | Subject<PackageStoreSubject>): void {
  describe(`${name} keeps the PackageStore contract`, () => {
    const subject = eachSubject(makeSubject);
    const install = async (pkg: { guid: string; name: string }, version: string, check?: (path: string) => Promise<void>) =>
      subject().store.install({ ...pkg, version }, chunks(await subject().capOf({ ...pkg, version })), check);

    it('holds nothing at first', async () => {
      expect(subject().store.location).toEqual(expect.any(String));
      expect(await subject().store.versions(LIB.guid)).toEqual([]);
      expect(await subject().store.index()).toEqual({});
    });

    it('installs a version: listed at the path install gave, and named in the index', async () => {
      const stored = await install(LIB, '1.0.0');
      expect(stored).toEqual({ version: '1.0.0', path: expect.stringMatching(/\/lib-1\.0\.0\.cap$/) });
      expect(await subject().store.versions(LIB.guid)).toEqual([stored]);
      expect(await subject().store.index()).toEqual({ [LIB.guid]: 'lib-1.0.0.cap' });
    });

    it('lists the versions of a GUID oldest first, and only that GUID\'s', async () => {
      for (const version of ['2.0.0', '1.10.0', '1.0.0', '1.2.0']) await install(LIB, version);
      await install(OTHER, '1.5.0');
      expect((await subject().store.versions(LIB.guid)).map(({ version }) => version)).toEqual(['1.0.0', '1.2.0', '1.10.0', '2.0.0']);
      expect((await subject().store.versions(OTHER.guid)).map(({ version }) => version)).toEqual(['1.5.0']);
      expect(await subject().store.versions('pkg://example.org/absent')).toEqual([]);
    });

    it('the index names the newest version, whatever the order of installs', async () => {
      await install(LIB, '2.0.0');
      await install(LIB, '1.0.0');
      await install(OTHER, '0.1.0');
      expect(await subject().store.index()).toEqual({ [LIB.guid]: 'lib-2.0.0.cap', [OTHER.guid]: 'other-0.1.0.cap' });
    });

    it('runs the check on the written bytes before they take their name or the index names them', async () => {
      await install(LIB, '1.0.0');
      let seen: { path: string; index: Record<string, string>; named: boolean } | undefined;
      const stored = await install(LIB, '1.1.0', async (path) => void (seen = { path, index: await subject().store.index(), named: (await subject().store.versions(LIB.guid)).some((held) => held.version === '1.1.0') }));
      expect(seen).toMatchObject({ index: { [LIB.guid]: 'lib-1.0.0.cap' }, named: false });
      expect(basename(stored.path)).toBe('lib-1.1.0.cap');
    });

    it('keeps nothing when the check throws: the file is gone and the index as it was', async () => {
      await install(LIB, '1.0.0');
      const refusal = new Error('not the package the index said');
      await expect(install(LIB, '1.1.0', () => Promise.reject(refusal))).rejects.toBe(refusal);
      expect((await subject().store.versions(LIB.guid)).map(({ version }) => version)).toEqual(['1.0.0']);
      expect(await subject().store.index()).toEqual({ [LIB.guid]: 'lib-1.0.0.cap' });
    });

    it('keeps nothing of a stream that throws', async () => {
      await expect(subject().store.install({ ...LIB, version: '1.0.0' }, failing('half a package'))).rejects.toThrow('the stream broke');
      expect(await subject().store.versions(LIB.guid)).toEqual([]);
      expect(await subject().store.index()).toEqual({});
    });
  });
}
