import { describe, expect, it } from '@jest/globals';
import { canonicalChecksumJson, compareChecksums, digestLookup, isCoveredByChecksums, listingIntegrity, normalizeSecurity, securityDocument, signedPayloadOrder } from '../../../src/domain/integrity/security.js';
import { ConfigValidationError } from '../../../src/domain/errors.js';
import { comparePaths, isSigningArtifact, sortByPath, sortPaths, unsafePathReason } from '../../../src/domain/package/package-paths.js';
import { detectType, isCompressedMedia, sniffType } from '../../../src/domain/package/media-types.js';
import { incrementPatch, newestSatisfying } from '../../../src/domain/package/version-range.js';

describe('integrity rules', () => {
  it('covers every file but security.json and signature.sig', () => {
    expect(isCoveredByChecksums('security.json')).toBe(false);
    expect(isCoveredByChecksums('signature.sig')).toBe(false);
    expect(isCoveredByChecksums('signature.pub.pem')).toBe(true);
    expect(isCoveredByChecksums('content/security.json')).toBe(true);
  });

  it('orders the signed payload by sorted path', () => {
    expect(signedPayloadOrder({ 'metadata.json': 'a', 'content/b': 'b', 'content/a': 'c', 'Z.txt': 'd' })).toEqual(['Z.txt', 'content/a', 'content/b', 'metadata.json']);
  });

  it('sorts by code point, as other implementations do', () => {
    expect(['b', 'a', '\u{1F600}', '\uFF5E'].sort(comparePaths)).toEqual(['a', 'b', '\uFF5E', '\u{1F600}']);
  });

  it('names mismatched, missing and uncovered files', () => {
    const report = compareChecksums({ a: '1', b: '2', c: '3' }, new Map([['a', '1'], ['b', 'x'], ['d', '4'], ['signature.sig', '5']]));
    expect(report).toEqual({ mismatched: ['b'], missing: ['c'], uncovered: ['d'] });
  });

  it('names missing and uncovered files from the file list alone, before anything is hashed', () => {
    expect(listingIntegrity({ a: '1', c: '3' }, ['a', 'd', 'security.json', 'signature.sig'])).toEqual({ mismatched: [], missing: ['c'], uncovered: ['d'] });
    expect(listingIntegrity({ a: '1', 'security.json': '2' }, ['a', 'security.json'])).toEqual({ mismatched: [], missing: [], uncovered: [] });
    // A file named after what every object inherits is covered only by a checksum of its own.
    expect(listingIntegrity({ a: '1' }, ['a', 'constructor', 'toString'])).toEqual({ mismatched: [], missing: [], uncovered: ['constructor', 'toString'] });
    expect(compareChecksums({ a: '1' }, new Map([['a', '1'], ['constructor', '2']]))).toEqual({ mismatched: [], missing: [], uncovered: ['constructor'] });
    expect(listingIntegrity({ a: '1', 'security.json': '2' }, ['a'])).toEqual({ mismatched: [], missing: ['security.json'], uncovered: [] });
    expect(listingIntegrity({ b: '1', a: '2' }, [])).toEqual({ mismatched: [], missing: ['a', 'b'], uncovered: [] });
  });

  it('serializes checksums as compact sorted-key JSON', () => {
    expect(canonicalChecksumJson({ b: '2', a: '1' })).toBe('{"a":"1","b":"2"}');
  });

  it('knows the signing artifacts pack drops', () => {
    expect(['signature.sig', 'signature.pub.pem', 'signature.pub.asc'].every(isSigningArtifact)).toBe(true);
    expect(isSigningArtifact('content/signature.sig')).toBe(false);
  });
});

describe('entry names', () => {
  it.each([
    ['/etc/passwd', 'absolute path'],
    ['C:/x', 'drive letter'],
    ['c:x', 'drive letter'],
    ['../x', '".." segment'],
    ['a/../../x', '".." segment'],
    ['..', '".." segment'],
    ['content/..', '".." segment'],
    ['a\\b', 'contains a backslash'],
    ['a\0b', 'contains a NUL byte'],
    ['content/a\nb.html', 'contains a control character'],
    ['content/\u001b[2J.html', 'contains a control character'],
    ['content/a\u007f', 'contains a control character'],
    [`content/${'a'.repeat(256)}`, 'a file or folder name takes at most 255 bytes, what file systems hold'],
    [`content/${'\u00e9'.repeat(128)}`, 'a file or folder name takes at most 255 bytes, what file systems hold'],
    [`content/${'d/'.repeat(510)}x`, 'a path takes at most 1024 bytes'],
    ['', 'empty name'],
    ['a/./b', '"." segment: another spelling of a path'],
    ['./a', '"." segment: another spelling of a path'],
    ['a//b', 'empty segment: another spelling of a path'],
    ['a/b\\c', 'contains a backslash'],
  ])('refuses %j', (name, reason) => expect(unsafePathReason(name)).toBe(reason));

  it.each(['content/a.html', 'content/..hidden', 'a..b/c', '.pkg-tombstones', 'content/...', 'content/x..', 'content/.well-known/x', 'ab:c', 'dir/', '1:x', 'content/caf\u00e9 menu.html', 'content/tab\u0080', `content/${'a'.repeat(255)}`, `content/${'\u00e9'.repeat(127)}`])('accepts %j', (name) => expect(unsafePathReason(name)).toBeUndefined());
});

describe('media types', () => {
  it('detects by extension, then by content, then falls back', () => {
    expect(detectType('content/a.html')).toBe('text/html');
    expect(detectType('content/a.css')).toBe('text/css');
    expect(detectType('content/noext', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe('image/png');
    expect(detectType('content/noext', new TextEncoder().encode('<!DOCTYPE html><p>'))).toBe('text/html');
    expect(detectType('content/noext', new Uint8Array([0, 1, 2, 3]))).toBe('application/octet-stream');
    expect(sniffType(new TextEncoder().encode('plain words'))).toBe('text/plain');
  });

  it('stores already-compressed media', () => {
    expect(isCompressedMedia('content/a.PNG')).toBe(true);
    expect(isCompressedMedia('content/font.woff2')).toBe(true);
    expect(isCompressedMedia('content/a.html')).toBe(false);
  });
});

describe('version ranges', () => {
  it('picks the newest satisfying version for every accepted range form', () => {
    const versions = ['1.0.0', '1.2.3', '1.2.9', '1.3.0', '2.0.0', '2.1.0-beta.1'];
    expect(newestSatisfying(versions, '>=1.0.0, <2.0.0')).toBe('1.3.0');
    expect(newestSatisfying(versions, '^1.2.3')).toBe('1.3.0');
    expect(newestSatisfying(versions, '~1.2.3')).toBe('1.2.9');
    expect(newestSatisfying(versions, '1.2.x')).toBe('1.2.9');
    expect(newestSatisfying(versions, '1.x')).toBe('1.3.0');
    expect(newestSatisfying(versions, '*')).toBe('2.0.0');
    expect(newestSatisfying(versions, '1.2.3')).toBe('1.2.3');
    expect(newestSatisfying(versions, '>=3')).toBeUndefined();
  });

  it('increments the patch part for a save', () => {
    expect(incrementPatch('1.2.3')).toBe('1.2.4');
    expect(incrementPatch('1.2.3-beta+7')).toBe('1.2.4');
  });
});

describe('code-point order', () => {
  it('agrees with comparing code point arrays on mixed BMP, private-use and astral characters', () => {
    const samples = ['a', 'b', 'z', 'é', '\uD7FF', '\uE000', '\uFFFD', '\u{10000}', '\u{1F600}', 'a\u{1F600}', 'a\uFFFD', ''];
    const byCodePoints = (x: string, y: string) => {
      const [p, q] = [[...x].map((c) => c.codePointAt(0)!), [...y].map((c) => c.codePointAt(0)!)];
      for (let i = 0; i < Math.min(p.length, q.length); i++) if (p[i] !== q[i]) return p[i]! - q[i]!;
      return p.length - q.length;
    };
    for (const x of samples) for (const y of samples) expect(Math.sign(comparePaths(x, y))).toBe(Math.sign(byCodePoints(x, y)));
  });

  it('sorts in that order whether or not a path holds a surrogate (the fast path is taken only without one)', () => {
    const bmp = ['content/b', 'content/\uFFFD', 'content/a/z', 'content/a', 'content/é', 'data/x', 'content/\uE000'];
    const expected = [...bmp].sort(comparePaths);
    expect(sortPaths(bmp)).toEqual(expected);
    expect(expected).toEqual(['content/a', 'content/a/z', 'content/b', 'content/é', 'content/\uE000', 'content/\uFFFD', 'data/x']);
    const astral = [...bmp, 'content/\u{1F600}'];
    expect(sortByPath(astral.map((path) => ({ path })), (item) => item.path).map((item) => item.path)).toEqual([...expected.slice(0, 6), 'content/\u{1F600}', 'data/x']);
  });
});

describe('checksumAlgorithm', () => {
  const digest = 'a'.repeat(64);
  const document = (integrityChecks: Record<string, unknown>) => ({ security: { integrityChecks: { checksums: { 'metadata.json': digest }, ...integrityChecks } } });

  it('is written as SHA-256, which other implementations require', () => {
    expect(securityDocument({ checksums: { 'metadata.json': digest } }).security.integrityChecks).toEqual({ checksumAlgorithm: 'SHA-256', checksums: { 'metadata.json': digest } });
  });

  it('reads SHA-256 or absent (absent means SHA-256)', () => {
    expect(normalizeSecurity(document({ checksumAlgorithm: 'SHA-256' })).checksums).toEqual({ 'metadata.json': digest });
    expect(normalizeSecurity(document({})).checksums).toEqual({ 'metadata.json': digest });
  });

  it('reads uppercase digests in lowercase and refuses what is not 64 hex digits', () => {
    expect(normalizeSecurity(document({})).checksums['metadata.json']).toBe(digest);
    const read = (value: unknown) => normalizeSecurity({ security: { integrityChecks: { checksums: { 'metadata.json': value } } } }).checksums['metadata.json'];
    expect(read('AB'.repeat(32))).toBe('ab'.repeat(32));
    for (const bad of ['a'.repeat(63), 'a'.repeat(65), 'g'.repeat(64), ` ${'a'.repeat(63)}`, 42]) expect(() => read(bad)).toThrow(/checksums\["metadata.json"\]: not a SHA-256 hex digest/);
  });

  it('orders the checksums by path whatever order the document has', () => {
    const checksums = { 'b.json': digest, 'a.json': digest, 'content/z': digest, 'content/a': digest };
    expect(Object.keys(normalizeSecurity({ security: { integrityChecks: { checksums } } }).checksums)).toEqual(['a.json', 'b.json', 'content/a', 'content/z']);
  });

  it('keeps the checksums as parsed when they are canonical already, and copies them otherwise', () => {
    const parsed = JSON.parse(`{"security":{"integrityChecks":{"checksums":{"a.json":"${digest}","b.json":"${digest}"}}}}`);
    expect(normalizeSecurity(parsed).checksums).toEqual({ 'a.json': digest, 'b.json': digest });
    const proto = JSON.parse(`{"security":{"integrityChecks":{"checksums":{"__proto__":"${digest}","a.json":"${digest}"}}}}`);
    // A file may be named __proto__: its checksum is kept like any other (a missing file then reads as missing).
    expect(Object.keys(normalizeSecurity(proto).checksums)).toEqual(['__proto__', 'a.json']);
    const upper = JSON.parse(`{"security":{"integrityChecks":{"checksums":{"a.json":"${digest.toUpperCase()}"}}}}`);
    expect(normalizeSecurity(upper).checksums).toEqual({ 'a.json': digest });
  });

  it('looks digests up by path, and nothing an object inherits', () => {
    const lookup = digestLookup({ 'a.json': digest });
    expect(lookup.get('a.json')).toBe(digest);
    for (const path of ['b.json', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) expect(lookup.get(path)).toBeUndefined();
  });

  it('refuses any other algorithm with a clear error', () => {
    expect(() => normalizeSecurity(document({ checksumAlgorithm: 'MD5' }))).toThrow(ConfigValidationError);
    expect(() => normalizeSecurity(document({ checksumAlgorithm: 'MD5' }))).toThrow(/checksumAlgorithm: "MD5" is not supported; only "SHA-256"/);
  });
});
