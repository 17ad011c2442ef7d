import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { overlayKey, overlayMountOf } from '../../../src/domain/serving/overlay-key.js';

describe('overlay keys', () => {
  it('name their mount again: the key of any mount path and package reads back as them', () => {
    const segment = fc.string({ minLength: 1, maxLength: 12 }).filter((text) => !text.includes('/'));
    const packageName = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/);
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), packageName, (segments, name) => {
        const path = segments.length === 0 ? '/' : `/${segments.join('/')}/`;
        expect(overlayMountOf(overlayKey(path, name))).toEqual({ path, packageName: name });
      }),
    );
  });

  it('read a key of the older layout, a package name alone, as the root mount', () => {
    expect(overlayMountOf('example-site')).toEqual({ path: '/', packageName: 'example-site' });
    expect(overlayMountOf('root~example-site')).toEqual({ path: '/', packageName: 'example-site' });
    expect(overlayMountOf('%72oot~example-site')).toEqual({ path: '/root/', packageName: 'example-site' });
  });

  it('name no mount for a folder whose name no key has (put in the workdir by other means)', () => {
    expect(overlayMountOf('a%~example-site')).toBeUndefined();
  });
});
