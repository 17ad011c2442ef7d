import { describe, expect, it } from '@jest/globals';
import type { StoreDirectory } from '../../src/application/ports/package-store.js';
import { bytes, chunks, eachSubject, failing, type Subject } from './subject.js';

export interface StoreDirectorySubject {
  /** A store directory that does not exist yet. */
  directory: StoreDirectory;
}

const LIB = { guid: 'pkg://example.org/lib', name: 'lib' };

/** The promises of the StoreDirectory port (src/application/ports/package-store.ts). */
export function describeStoreDirectoryContract(name: string, makeSubject: () => Promise<Subject<StoreDirectorySubject>> | Subject<StoreDirectorySubject>): void {
  describe(`${name} keeps the StoreDirectory contract`, () => {
    const subject = eachSubject(makeSubject);
    const install = (version: string, content = `lib ${version}`, check?: (path: string) => Promise<void>) => subject().directory.install({ ...LIB, version }, chunks(content), check);
    const names = async () => (await subject().directory.files()).map(({ name }) => name).sort();

    it('has no files and an empty index when the directory does not exist', async () => {
      expect(await subject().directory.files()).toEqual([]);
      expect(await subject().directory.index()).toEqual({});
    });

    it('installs <name>-<version>.cap whole, and lists it by name with its path', async () => {
      const stored = await install('1.0.0');
      const [file] = await subject().directory.files();
      expect(file).toEqual({ name: 'lib-1.0.0.cap', path: stored.path, identity: expect.any(String) });
      expect(stored.version).toBe('1.0.0');
      expect(await subject().directory.index()).toEqual({ [LIB.guid]: 'lib-1.0.0.cap' });
    });

    it('keeps a file\'s identity while it is unchanged, and changes it when its bytes may have', async () => {
      await install('1.0.0', 'first bytes');
      await install('1.1.0');
      const before = await subject().directory.files();
      expect(await subject().directory.files()).toEqual(before);
      await install('1.0.0', 'other, longer bytes');
      const after = await subject().directory.files();
      expect(after.find((file) => file.name === 'lib-1.0.0.cap')!.identity).not.toBe(before.find((file) => file.name === 'lib-1.0.0.cap')!.identity);
      expect(after.find((file) => file.name === 'lib-1.1.0.cap')!.identity).toBe(before.find((file) => file.name === 'lib-1.1.0.cap')!.identity);
    });

    it('the index names the newest version beside it, whatever the order of installs', async () => {
      await install('2.0.0');
      await install('1.0.0');
      expect(await names()).toEqual(['lib-1.0.0.cap', 'lib-2.0.0.cap']);
      expect(await subject().directory.index()).toEqual({ [LIB.guid]: 'lib-2.0.0.cap' });
    });

    it('runs the check on the written bytes beside their name, before they take it; a check that throws leaves the store as it was', async () => {
      await install('1.0.0');
      await install('1.1.0', 'good');
      const before = await subject().directory.files();
      const refusal = new Error('refused');
      let checked: string | undefined;
      await expect(
        install('1.1.0', 'bad', async (path) => {
          checked = path;
          throw refusal;
        }),
      ).rejects.toBe(refusal);
      expect(checked).toMatch(/\/lib-1\.1\.0\.cap\.[0-9a-f]+\.pkg-partial$/);
      // What had the name keeps it: a download that fails its check replaces nothing.
      expect(await subject().directory.files()).toEqual(before);
      expect(await subject().directory.index()).toEqual({ [LIB.guid]: 'lib-1.1.0.cap' });
    });

    it('leaves nothing of a stream that throws', async () => {
      await expect(subject().directory.install({ ...LIB, version: '1.0.0' }, failing('half'))).rejects.toThrow('the stream broke');
      expect(await subject().directory.files()).toEqual([]);
      expect(await subject().directory.index()).toEqual({});
    });

    it('reindex points a GUID at a file of the store, or drops it, and leaves the other GUIDs', async () => {
      const app = { guid: 'pkg://example.org/app', name: 'app', version: '1.0.0' };
      await install('1.0.0');
      await install('1.1.0');
      await subject().directory.install(app, chunks('app'));
      await subject().directory.reindex(LIB.guid, 'lib-1.0.0.cap');
      expect(await subject().directory.index()).toEqual({ [LIB.guid]: 'lib-1.0.0.cap', [app.guid]: 'app-1.0.0.cap' });
      await subject().directory.reindex(LIB.guid, undefined);
      expect(await subject().directory.index()).toEqual({ [app.guid]: 'app-1.0.0.cap' });
    });

    it('installs that run at once all end complete, and the index consistent', async () => {
      await Promise.all(['1.0.0', '1.1.0', '1.2.0', '1.0.0'].map((version) => subject().directory.install({ ...LIB, version }, chunks(bytes(`lib ${version}`)))));
      expect(await names()).toEqual(['lib-1.0.0.cap', 'lib-1.1.0.cap', 'lib-1.2.0.cap']);
      expect(await subject().directory.index()).toEqual({ [LIB.guid]: 'lib-1.2.0.cap' });
    });
  });
}
