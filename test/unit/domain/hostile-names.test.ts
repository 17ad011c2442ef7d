import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { entryNamesProblem, unsafePathReason } from '../../../src/domain/package/package-paths.js';
import { normalizeRequestPath } from '../../../src/domain/serving/request-path.js';
import { DEFAULT_ARCHIVE_LIMITS, RATIO_FLOOR, archiveLimitsFrom, checkArchiveLimits, checkArchiveToWrite, mustStore, parseSize } from '../../../src/domain/package/archive-limits.js';
import { ArchiveLimitError } from '../../../src/domain/errors.js';

/** Segments strangers write: dots, slashes, backslashes, NULs, percent signs, non-ASCII, combining marks. */
const segment = fc.oneof(
  fc.constantFrom('', '.', '..', '...', 'a', 'a.txt', '%2e', '%2f', '%2E%2E', '%00', '%5c', '\\', '\0', 'é', 'e\u0301', '\uD800', 'con', ' ', '\n', '\u001b'),
  fc.string({ maxLength: 6 }),
);
const name = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('/'));

describe('entry names from strangers', () => {
  it('an accepted name stays below its root and is the one spelling of its path', () => {
    fc.assert(
      fc.property(name, (candidate) => {
        if (unsafePathReason(candidate) !== undefined) return;
        const parts = candidate.replace(/\/$/, '').split('/');
        // eslint-disable-next-line no-control-regex -- finding control characters is the point
        expect(parts.every((part) => part !== '' && part !== '.' && part !== '..' && !part.includes('\\') && !/[\0-\x1f\x7f]/.test(part))).toBe(true);
        expect(candidate.startsWith('/')).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it('a set of accepted names has no two that mean one file once normalized, and no file below a file', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 8 }), (names) => {
        const safe = names.filter((candidate) => unsafePathReason(candidate) === undefined && !candidate.endsWith('/'));
        if (entryNamesProblem(safe) !== undefined) return;
        const normal = safe.map((candidate) => candidate.normalize('NFC'));
        expect(new Set(normal).size).toBe(normal.length);
        for (const file of normal) for (const other of normal) expect(other.startsWith(`${file}/`)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('entry names together', () => {
  it.each([
    [['x/y/z', 'x/y/w', 'x'], { name: 'x/y/z', reason: 'lies below "x", which is a file' }],
    [['a/b/c', 'a/b/d', 'a/b'], { name: 'a/b/c', reason: 'lies below "a/b", which is a file' }],
    [['a/b/c', 'a/b/d/e', 'a/b/d'], { name: 'a/b/d/e', reason: 'lies below "a/b/d", which is a file' }],
    [['\u00e9', 'e\u0301'], { name: 'e\u0301', reason: 'is another spelling of "\u00e9" (the same name once Unicode-normalized: decomposed (NFD) here, composed (NFC) there)' }],
    [['caf\u00e9/a', 'cafe\u0301'], { name: 'caf\u00e9/a', reason: 'lies below "cafe\u0301", which is a file' }],
  ])('refuses %j', (names, problem) => expect(entryNamesProblem(names)).toEqual(problem));

  it.each([[['a/b', 'a/c', 'b']], [['x/y/z', 'x/y/w', 'x/v']], [['caf\u00e9/a', 'caf\u00e9/b']], [['a', 'a']]])('accepts %j', (names) => expect(entryNamesProblem(names)).toBeUndefined());

  it('finds a file below a file in any order, names sorted folder by folder included, with or without the caller\'s own look-up', () => {
    const segment = fc.constantFrom('a', 'b', 'ab', 'a.b');
    const name = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 12 }), fc.boolean(), (names, sorted) => {
        const list = sorted ? [...names].sort() : names;
        const clash = list.some((file) => list.some((other) => other.startsWith(`${file}/`)));
        const found = entryNamesProblem(list);
        expect(found !== undefined).toBe(clash);
        expect(entryNamesProblem(list, (candidate) => list.includes(candidate))).toEqual(found);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('URL paths from strangers', () => {
  it('a decoded path never steps outside its root, however it was spelled', () => {
    fc.assert(
      // What can arrive in a request line: no lone surrogates (they have no UTF-8 form).
      fc.property(name.filter((raw) => !/[\uD800-\uDFFF]/.test(raw)), (raw) => {
        const parsed = normalizeRequestPath(`/${raw}`);
        if (!parsed.ok) return;
        const parts = parsed.path.split('/').slice(1);
        expect(parts.every((part) => part !== '.' && part !== '..' && !part.includes('\\') && !part.includes('\0'))).toBe(true);
        expect(parsed.path.startsWith('/')).toBe(true);
        // Normalizing again changes nothing: one spelling per path.
        const again = normalizeRequestPath(parsed.path.split('/').map(encodeURIComponent).join('/'));
        expect(again).toEqual(parsed);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('archive limits', () => {
  it('refuses any directory declaring more than the total, whatever the split into entries', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 2 ** 31 }), { minLength: 1, maxLength: 20 }), (sizes) => {
        const entries = sizes.map((size, i) => ({ name: `e${i}`, size, compressedSize: Math.ceil(size / 10) }));
        const total = sizes.reduce((sum, size) => sum + size, 0);
        const check = () => checkArchiveLimits('x.cap', entries, total, DEFAULT_ARCHIVE_LIMITS);
        if (total > DEFAULT_ARCHIVE_LIMITS.maxExpandedSize) expect(check).toThrow(ArchiveLimitError);
        else expect(check).not.toThrow();
      }),
    );
  });

  it('an archive written by the mustStore rule keeps to the ratio limit, each entry and the whole, however its entries compress', () => {
    const LOCAL_HEADER = 40;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.array(fc.record({ size: fc.nat({ max: 4 * RATIO_FLOOR }), ratio: fc.integer({ min: 1, max: 1032 }) }), { minLength: 1, maxLength: 40 }),
        (maxRatio, sizes) => {
          const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxRatio };
          let written = 0;
          let expanded = 0;
          const entries = sizes.map(({ size, ratio }, i) => {
            const deflatedSize = Math.ceil(size / ratio);
            const compressedSize = mustStore({ size, deflatedSize }, { expandedBefore: expanded, writtenAfter: written + LOCAL_HEADER + deflatedSize }, limits) ? size : deflatedSize;
            written += LOCAL_HEADER + compressedSize;
            expanded += size;
            return { name: `e${i}`, size, compressedSize };
          });
          expect(() => checkArchiveLimits('x.cap', entries, written, limits)).not.toThrow();
        },
      ),
    );
  });

  it('refuses to write more entries, or more bytes, than a reader takes', () => {
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxEntries: 2, maxExpandedSize: 1000 };
    expect(() => checkArchiveToWrite('x.cap', { entries: 2, expandedSize: 1000 }, limits)).not.toThrow();
    expect(() => checkArchiveToWrite('x.cap', { entries: 3, expandedSize: 10 }, limits)).toThrow(new ArchiveLimitError('x.cap: 3 entries, more than the limit of 2; not written, since every reader would refuse it (limits: --max-expanded-size, --max-entries)'));
    expect(() => checkArchiveToWrite('x.cap', { entries: 1, expandedSize: 1001 }, limits)).toThrow(/x\.cap: its entries expand to 1001 bytes, more than the limit of 1000; not written/);
  });

  it('reads sizes with binary suffixes', () => {
    expect(parseSize('4G')).toBe(4 * 1024 ** 3);
    expect(parseSize('512k')).toBe(512 * 1024);
    expect(parseSize('16MiB')).toBe(16 * 1024 ** 2);
    for (const bad of ['0', '-1', '1.5G', 'lots', '', '9'.repeat(30)]) expect(parseSize(bad)).toBeUndefined();
  });
});

describe('archive limits from the environment', () => {
  it('reads a size with a unit, and a count or a ratio as a plain whole number only', () => {
    expect(archiveLimitsFrom({ PKG_MAX_EXPANDED_SIZE: '2G', PKG_MAX_RATIO: '50', PKG_MAX_ENTRIES: '10' })).toEqual({ maxExpandedSize: 2 * 1024 ** 3, maxRatio: 50, maxEntries: 10 });
    expect(() => archiveLimitsFrom({ PKG_MAX_RATIO: '1K' })).toThrow('PKG_MAX_RATIO="1K" must be a positive whole number');
    expect(() => archiveLimitsFrom({ PKG_MAX_ENTRIES: 'abc' })).toThrow(/^PKG_MAX_ENTRIES="abc" must be a positive whole number$/);
    expect(() => archiveLimitsFrom({ PKG_MAX_EXPANDED_SIZE: 'abc' })).toThrow('(sizes may end in K, M, G or T)');
  });
});
