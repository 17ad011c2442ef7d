import { describe, expect, it } from '@jest/globals';
import { StoreCatalog } from '../../../src/application/package/store-catalog.js';
import type { PackageSource } from '../../../src/application/ports/package-source.js';
import type { Warnings } from '../../../src/application/ports/warnings.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { MemoryStoreDirectory } from '../../fakes/memory-store-directory.js';

const GUID = 'pkg://example.org/theme';
const OTHER = 'pkg://example.org/other';

const metadata = (name: string, version: string, guid = GUID) =>
  JSON.stringify({ name, version, guid, description: `${name} ${version}`, uuid: '123e4567-e89b-42d3-a456-426614174000' });

/** Counts the packages it opens, by location. */
class CountingOpener extends MemoryOpener {
  readonly opened: string[] = [];
  override async open(location: string): Promise<PackageSource> {
    this.opened.push(location);
    return super.open(location);
  }
}

function setup() {
  const directory = new MemoryStoreDirectory();
  const opener = new CountingOpener();
  const warned: string[] = [];
  const warnings: Warnings = { warn: (message) => void warned.push(message) };
  // The directory knows the file; the opener knows what it holds.
  const put = (name: string, files: Record<string, string>) => void opener.add(directory.put(name), files);
  return { directory, opener, warned, put, store: new StoreCatalog(directory, opener, warnings).open(directory.location) };
}

describe('StoreCatalog', () => {
  it('finds a GUID\'s versions by the metadata.json inside each .cap, with no index.json and whatever the files are called', async () => {
    const { put, store } = setup();
    put('theme-1.1.0.cap', { 'metadata.json': metadata('theme', '1.1.0') });
    put('downloaded.cap', { 'metadata.json': metadata('theme', '1.0.0') });
    put('other-1.0.0.cap', { 'metadata.json': metadata('other', '1.0.0', OTHER) });
    // Named like the theme, but another package: its metadata, not its name, decides.
    put('theme-2.0.0.cap', { 'metadata.json': metadata('theme', '2.0.0', OTHER) });
    expect(await store.versions(GUID)).toEqual([
      { version: '1.0.0', path: '/stores/memory/downloaded.cap' },
      { version: '1.1.0', path: '/stores/memory/theme-1.1.0.cap' },
    ]);
    expect((await store.versions(OTHER)).map(({ version }) => version)).toEqual(['1.0.0', '2.0.0']);
    expect(await store.versions('pkg://example.org/absent')).toEqual([]);
  });

  it('takes index.json as a hint only: unlisted files count, entries whose file is gone or holds another package are ignored', async () => {
    const { directory, put, store } = setup();
    directory.indexed = { [GUID]: 'theme-9.9.9.cap', [OTHER]: 'theme-1.0.0.cap' };
    put('theme-1.0.0.cap', { 'metadata.json': metadata('theme', '1.0.0') });
    expect(await store.versions(GUID)).toEqual([{ version: '1.0.0', path: '/stores/memory/theme-1.0.0.cap' }]);
    expect(await store.versions(OTHER)).toEqual([]);
  });

  it('keeps one file per version: the one named <name>-<version>.cap when two hold the same version', async () => {
    const { put, store } = setup();
    put('a-copy.cap', { 'metadata.json': metadata('theme', '1.0.0') });
    put('theme-1.0.0.cap', { 'metadata.json': metadata('theme', '1.0.0') });
    put('z-copy.cap', { 'metadata.json': metadata('theme', '1.0.0') });
    expect(await store.versions(GUID)).toEqual([{ version: '1.0.0', path: '/stores/memory/theme-1.0.0.cap' }]);
  });

  it('reads each file once per identity: a second lookup opens nothing, a changed or new file is read again', async () => {
    const { opener, put, store } = setup();
    put('theme-1.0.0.cap', { 'metadata.json': metadata('theme', '1.0.0') });
    put('theme-1.1.0.cap', { 'metadata.json': metadata('theme', '1.1.0') });
    await Promise.all([store.versions(GUID), store.versions(GUID), store.versions(OTHER)]);
    expect(opener.opened.sort()).toEqual(['/stores/memory/theme-1.0.0.cap', '/stores/memory/theme-1.1.0.cap']);
    opener.opened.length = 0;
    await store.versions(GUID);
    expect(opener.opened).toEqual([]);
    // Rewritten in place as another version: a new identity, so read again.
    put('theme-1.1.0.cap', { 'metadata.json': metadata('theme', '1.2.0') });
    put('theme-1.3.0.cap', { 'metadata.json': metadata('theme', '1.3.0') });
    expect((await store.versions(GUID)).map(({ version }) => version)).toEqual(['1.0.0', '1.2.0', '1.3.0']);
    expect(opener.opened.sort()).toEqual(['/stores/memory/theme-1.1.0.cap', '/stores/memory/theme-1.3.0.cap']);
  });

  it('skips a .cap it cannot read with one warning per identity, and lists the rest', async () => {
    const { directory, put, store, warned } = setup();
    put('theme-1.0.0.cap', { 'metadata.json': metadata('theme', '1.0.0') });
    put('no-metadata.cap', { 'content/index.html': '<p>hi</p>' });
    put('bad-json.cap', { 'metadata.json': '{not json' });
    put('no-guid.cap', { 'metadata.json': JSON.stringify({ name: 'theme', version: '1.5.0', description: 'x' }) });
    directory.put('not-openable.cap');
    expect(await store.versions(GUID)).toEqual([{ version: '1.0.0', path: '/stores/memory/theme-1.0.0.cap' }]);
    await store.versions(GUID);
    expect(warned).toHaveLength(4);
    expect(warned.every((message) => message.startsWith('store /stores/memory: skipped '))).toBe(true);
    expect(warned.find((message) => message.includes('no-metadata.cap'))).toMatch(/PackageFormatError: .*has no metadata\.json/);
    expect(warned.find((message) => message.includes('not-openable.cap'))).toMatch(/SourceNotFoundError/);
  });

  it('opens at most 8 files at once, however many lookups run', async () => {
    const { directory, put, opener } = setup();
    let open = 0;
    let most = 0;
    const slow: typeof opener.open = async (location) => {
      most = Math.max(most, ++open);
      await new Promise((resolve) => setTimeout(resolve, 2));
      const source = await MemoryOpener.prototype.open.call(opener, location);
      const close = source.close.bind(source);
      source.close = async () => {
        open--;
        await close();
      };
      return source;
    };
    for (let i = 0; i < 40; i++) put(`theme-1.${i}.0.cap`, { 'metadata.json': metadata('theme', `1.${i}.0`) });
    const store = new StoreCatalog(directory, { open: slow }, { warn: () => undefined }).open(directory.location);
    const [a, b] = await Promise.all([store.versions(GUID), store.versions(GUID)]);
    expect(a).toHaveLength(40);
    expect(b).toEqual(a);
    expect(most).toBe(8);
  });
});
