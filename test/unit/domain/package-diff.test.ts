import { describe, expect, it } from '@jest/globals';
import { diffPackages, type PackageSnapshot } from '../../../src/domain/package/package-diff.js';

const snapshot = (overrides: Partial<PackageSnapshot> = {}): PackageSnapshot => ({
  name: 'p',
  version: '1.0.0',
  guid: 'g',
  files: new Map([['content/a.html', '1']]),
  routes: new Map([['/a.html', '{"resource":"content/a.html"}']]),
  datasets: new Map([['animals', new Map([['1', '{"id":1}']])]]),
  signature: 'unsigned',
  encrypted: false,
  ...overrides,
});

describe('diffPackages', () => {
  it('is equal for equal snapshots', () => {
    expect(diffPackages(snapshot(), snapshot()).equal).toBe(true);
  });

  it('lists every item of a dataset added or removed whole, and a route whose target changed', () => {
    const diff = diffPackages(
      snapshot(),
      snapshot({ routes: new Map([['/a.html', '{"resource":"content/b.html"}']]), datasets: new Map([['plants', new Map([['x', '{}'], ['y', '{}']])]]) }),
    );
    expect(diff.equal).toBe(false);
    expect(diff.routes).toEqual({ added: [], removed: [], changed: ['/a.html'] });
    expect(diff.datasets).toEqual({
      added: ['plants'],
      removed: ['animals'],
      changed: [],
      items: { plants: { added: ['x', 'y'], removed: [], changed: [] }, animals: { added: [], removed: ['1'], changed: [] } },
    });
  });

  it('differs on identity, signature or encryption alone', () => {
    expect(diffPackages(snapshot(), snapshot({ guid: 'other' })).equal).toBe(false);
    expect(diffPackages(snapshot(), snapshot({ signature: 'OpenPGP' })).equal).toBe(false);
    expect(diffPackages(snapshot(), snapshot({ encrypted: true })).equal).toBe(false);
  });
});
