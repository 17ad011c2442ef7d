import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, InvalidRegistryError } from '../../../src/domain/errors.js';
import { parseBundleIndex } from '../../../src/domain/dependencies/bundle-index.js';
import { packageFileName, parsePackageFileName } from '../../../src/domain/dependencies/package-file-name.js';
import { parseRegistryIndex, withVersion } from '../../../src/domain/dependencies/registry-index.js';
import { parseRegistryReference, redactCredentials, redactMessage } from '../../../src/domain/dependencies/registry-reference.js';
import { parseStoreIndex } from '../../../src/domain/dependencies/store-index.js';

const SHA = 'a'.repeat(64);
const entry = { file: 'lib-1.0.0.cap', sha256: SHA, size: 10 };

describe('registry index.json', () => {
  it('reads the canonical shape', () => {
    const index = parseRegistryIndex({ packages: { 'pkg://x/lib': { name: 'lib', versions: { '1.0.0': { ...entry, sha256: SHA.toUpperCase() } } } } }, 'r/index.json');
    expect(index.packages['pkg://x/lib']!.versions['1.0.0']).toEqual(entry);
    expect(withVersion(index, 'pkg://x/lib', 'lib', '1.1.0', { ...entry, file: 'lib-1.1.0.cap' }).packages['pkg://x/lib']!.versions).toHaveProperty(['1.1.0']);
  });

  it.each([
    ['not an object', [], /must be an object with a "packages" object/],
    ['packages is a list', { packages: [] }, /"packages" object/],
    ['no name', { packages: { g: { versions: {} } } }, /needs a kebab-case "name"/],
    ['a version that is not semver', { packages: { g: { name: 'lib', versions: { latest: entry } } } }, /"latest" is not a semantic version/],
    ['a leading zero', { packages: { g: { name: 'lib', versions: { '01.0.0': entry } } } }, /"01.0.0" is not a semantic version/],
    ['an escaping file', { packages: { g: { name: 'lib', versions: { '1.0.0': { ...entry, file: '../x.cap' } } } } }, /"file" must be a path relative/],
    ['a short sha256', { packages: { g: { name: 'lib', versions: { '1.0.0': { ...entry, sha256: 'abc' } } } } }, /"sha256" must be 64 hex digits/],
    ['a size that is a string', { packages: { g: { name: 'lib', versions: { '1.0.0': { ...entry, size: '10' } } } } }, /"size" must be a whole number/],
  ])('refuses %s with InvalidRegistryError', (_, raw, message) => {
    expect(() => parseRegistryIndex(raw, 'r/index.json')).toThrow(InvalidRegistryError);
    expect(() => parseRegistryIndex(raw, 'r/index.json')).toThrow(message);
  });
});

describe('registry references', () => {
  it('tells directories from URLs and keeps credentials out of what it shows', () => {
    expect(parseRegistryReference('/srv/registry')).toEqual({ kind: 'directory', path: '/srv/registry' });
    expect(parseRegistryReference('file:///srv/my%20registry')).toEqual({ kind: 'directory', path: '/srv/my registry' });
    expect(parseRegistryReference('https://user:s3cret@example.org/reg')).toEqual({
      kind: 'url',
      base: 'https://example.org/reg/',
      credentials: { username: 'user', password: 's3cret' },
      display: 'https://***@example.org/reg',
    });
    expect(parseRegistryReference('http://127.0.0.1:8080')).toMatchObject({ kind: 'url', base: 'http://127.0.0.1:8080/' });
    expect(parseRegistryReference('http://localhost/r/')).toMatchObject({ base: 'http://localhost/r/' });
    expect(parseRegistryReference('http://[::1]:9/')).toMatchObject({ base: 'http://[::1]:9/' });
  });

  it.each([
    ['http://example.org/reg', /plain http is allowed only for loopback hosts/],
    ['http://user:s3cret@example.org/reg', /^registry http:\/\/\*\*\*@example\.org\/reg: plain http/],
    ['ftp://example.org/reg', /only https URLs/],
    ['https://exa mple.org/', /is not a valid URL/],
    ['https://example.org/reg?x=1', /no query or fragment/],
  ])('refuses %s with InvalidRegistryError', (reference, message) => {
    expect(() => parseRegistryReference(reference)).toThrow(InvalidRegistryError);
    expect(() => parseRegistryReference(reference)).toThrow(message);
    try {
      parseRegistryReference(reference);
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cret');
    }
  });

  it('redacts credentials in references and in free text', () => {
    expect(redactCredentials('https://u:p@h/x')).toBe('https://***@h/x');
    expect(redactCredentials('/a/dir')).toBe('/a/dir');
    expect(redactMessage('GET https://u:p@h/x failed; see http://a:b@c/')).toBe('GET https://***@h/x failed; see http://***@c/');
  });

  it('redacts query values, where tokens travel, in references and in free text', () => {
    expect(redactCredentials('https://h/x?token=s3cret&v=2#frag')).toBe('https://h/x?token=***&v=***#frag');
    expect(redactCredentials('https://u:p@h/x?token=s3cret')).toBe('https://***@h/x?token=***');
    expect(redactMessage('GET https://h/index.json?token=s3cret failed (see "https://h/?a=b")')).toBe('GET https://h/index.json?token=*** failed (see "https://h/?a=***")');
    expect(() => parseRegistryReference('https://h/r/?token=s3cret')).toThrow('registry https://h/r/?token=*** a registry base URL has no query'.replace(' a', ': a'));
  });
});

describe('bundle index, store index and package file names', () => {
  it('reads file names back into name and version', () => {
    expect(packageFileName('ui-kit-2', '1.0.0-rc.1+b7')).toBe('ui-kit-2-1.0.0-rc.1+b7.cap');
    expect(parsePackageFileName('ui-kit-2-1.0.0-rc.1+b7.cap')).toEqual({ name: 'ui-kit-2', version: '1.0.0-rc.1+b7' });
    expect(parsePackageFileName('lib.cap')).toBeUndefined();
    expect(parsePackageFileName('Lib-1.0.0.cap')).toBeUndefined();
  });

  it('reads packages/index.json and refuses a wrong one', () => {
    const ok = { 'pkg://x/lib': { file: 'packages/lib-1.0.0.cap', version: '1.0.0', sha256: SHA } };
    expect(parseBundleIndex(ok)).toEqual(ok);
    expect(() => parseBundleIndex({ g: { file: 'lib-1.0.0.cap', version: '1.0.0', sha256: SHA } })).toThrow(ConfigValidationError);
    expect(() => parseBundleIndex({ g: { file: 'packages/lib-1.0.0.cap', version: '1.0.1', sha256: SHA } })).toThrow(/"version" must be the semantic version the file name carries/);
    expect(() => parseBundleIndex({ g: { file: 'packages/lib-1.0.0.cap', version: '1.0.0' } })).toThrow(/needs "file", "version" and "sha256"/);
  });

  it('reads a store index.json', () => {
    expect(parseStoreIndex({ g: 'lib-1.0.0.cap' }, 'store/index.json')).toEqual({ g: 'lib-1.0.0.cap' });
    expect(() => parseStoreIndex({ g: '../lib-1.0.0.cap' }, 'store/index.json')).toThrow(/store\/index.json: "g": must name/);
  });
});
