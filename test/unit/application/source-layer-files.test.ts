import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { SourceLayerFiles } from '../../../src/application/serving/source-layer-files.js';
import { MemoryPackageSource } from '../../fakes/memory-package-source.js';

/** A source that counts how often its whole list of entries is asked for. */
class CountingSource extends MemoryPackageSource {
  listings = 0;
  override entries() {
    this.listings++;
    return super.entries();
  }
}

/** What a layer held when its map was filled from the whole list at load. */
function copied(source: MemoryPackageSource, root: string): Map<string, { path: string; size: number; key: string }> {
  const files = new Map<string, { path: string; size: number; key: string }>();
  for (const entry of source.entries()) {
    if (!entry.path.startsWith(root)) continue;
    const path = entry.path.slice(root.length);
    if (path !== '.pkg-tombstones') files.set(path, { path, size: entry.size, key: entry.path });
  }
  return files;
}

describe('SourceLayerFiles', () => {
  const source = () =>
    new CountingSource({
      'metadata.json': '{}',
      'content/index.html': '<p>home</p>',
      'content/.pkg-tombstones': '[]',
      'content/docs/a.html': 'a',
      'content/extra/b.css': 'bb',
      'layers/top/index.html': 'top',
    });

  it('finds a file without listing the package, and keeps finding the same object', () => {
    const inner = source();
    const files = new SourceLayerFiles(inner, 'content/');
    const found = files.get('docs/a.html');
    expect(found).toEqual({ path: 'docs/a.html', size: 1, key: 'content/docs/a.html' });
    expect(files.get('docs/a.html')).toBe(found);
    expect(files.has('index.html')).toBe(true);
    expect(inner.listings).toBe(0);
    // Listed afterwards, the layer hands out the objects it gave before.
    expect([...files.values()].find((file) => file.path === 'docs/a.html')).toBe(found);
    expect(files.get('docs/a.html')).toBe(found);
    expect(inner.listings).toBe(1);
  });

  it('holds nothing outside its root, and never the tombstones file', () => {
    const files = new SourceLayerFiles(source(), 'content/');
    expect(files.get('.pkg-tombstones')).toBeUndefined();
    expect(files.has('../metadata.json')).toBe(false);
    expect(files.get('metadata.json')).toBeUndefined();
    expect(files.get('top/index.html')).toBeUndefined();
    expect(files.size).toBe(3);
  });

  it('answers every question as the copied map did, whatever is asked first', () => {
    const paths = ['index.html', 'docs/a.html', 'extra/b.css', '.pkg-tombstones', 'missing.html', 'docs', 'top/index.html', 'b.css', ''];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...paths), { maxLength: 8 }), fc.constantFrom('content/', 'content/extra/', 'layers/top/'), (asked, root) => {
        const inner = source();
        const files = new SourceLayerFiles(inner, root);
        const expected = copied(inner, root);
        for (const path of asked) {
          expect(files.has(path)).toBe(expected.has(path));
          expect(files.get(path)).toEqual(expected.get(path));
        }
        expect([...files.keys()]).toEqual([...expected.keys()]);
        expect([...files]).toEqual([...expected]);
        expect(files.size).toBe(expected.size);
        const visited: string[] = [];
        files.forEach((_, path) => visited.push(path));
        expect(visited).toEqual([...expected.keys()]);
      }),
    );
  });
});
