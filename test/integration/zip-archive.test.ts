import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import { ZipArchiveWriter } from '../../src/adapters/archive/zip-archive-writer.js';
import { ZipPackageSource } from '../../src/adapters/archive/zip-package-source.js';
import { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from '../../src/domain/package/archive-limits.js';
import { ArchiveLimitError, CorruptEntryError, IntegrityError, PackageFormatError, SourceNotFoundError, UnsafeEntryError, WriteFailedError } from '../../src/domain/errors.js';
import { USE_CASE } from '../../src/composition/service-ids.js';
import { productionContainer } from '../support/production-container.js';
import { writeRawZip } from '../support/hostile-zip.js';
import { writeZipEntries } from '../support/zip-entries.js';
import { writeRawEntriesZip, type RawZipEntry } from '../support/crafted-zip.js';
import { HAS_JAR, HAS_JAVA, readWithZipInputStream } from '../support/java.js';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { smallDiskForTests } from '../support/full-disk.js';

const container = productionContainer();
const pack = container.get(USE_CASE.PackPackage);
const work = temporaryDirectory();
let capPath: string;

beforeAll(async () => {
  capPath = (await pack.execute({ source: EXAMPLE_SITE, outputDirectory: join(work.path, 'a'), force: false })).path;
});
afterAll(() => work.remove());

describe('reproducible archives (ZipArchiveWriter)', () => {
  it('gives byte-identical output for the same input', async () => {
    const second = await pack.execute({ source: EXAMPLE_SITE, outputDirectory: join(work.path, 'b'), force: false });
    expect(readFileSync(second.path).equals(readFileSync(capPath))).toBe(true);
  });

  it('is accepted by Info-ZIP unzip -t', () => {
    expect(execFileSync('unzip', ['-t', capPath]).toString()).toMatch(/No errors detected/);
  });

  it('has checksums that sha256sum agrees with', () => {
    const out = join(work.path, 'extracted');
    execFileSync('unzip', ['-q', capPath, '-d', out]);
    const { checksums } = JSON.parse(readFileSync(join(out, 'security.json'), 'utf8')).security.integrityChecks;
    const list = Object.entries(checksums as Record<string, string>).map(([path, digest]) => `${digest}  ${path}\n`).join('');
    writeFileSync(join(work.path, 'SHA256SUMS'), list);
    const result = execFileSync('sha256sum', ['-c', join(work.path, 'SHA256SUMS')], { cwd: out }).toString();
    expect(result.trim().split('\n')).toHaveLength(Object.keys(checksums).length);
    expect(result).not.toMatch(/FAILED/);
  });

  it('stores already-compressed media and deflates text', () => {
    const listing = execFileSync('unzip', ['-v', capPath]).toString();
    expect(listing).toMatch(/Stored .* content\/images\/logo\.png/);
    expect(listing).toMatch(/Defl:N .* content\/index\.html/);
  });
});

describe('what ZipArchiveWriter writes keeps to the limits every reader holds it to', () => {
  const zeros = (size: number) => Buffer.alloc(size);
  const streamed = (bytes: Buffer) => (async function* () {
    for (let at = 0; at < bytes.length; at += 1 << 20) yield bytes.subarray(at, at + (1 << 20));
  })();
  const methods = (file: string) => execFileSync('python3', ['-c', 'import sys, zipfile\nprint({i.filename: i.compress_type for i in zipfile.ZipFile(sys.argv[1]).infolist()})', file], { encoding: 'utf8' });

  async function written(limits: ArchiveLimits, entries: Array<[string, Buffer | AsyncIterable<Uint8Array>]>, fileName = 'limited.cap') {
    const sink = await new ZipArchiveWriter(() => limits).create(work.path, fileName, { overwrite: true });
    try {
      for (const [path, data] of entries) await sink.add(path, data, { store: false });
      return (await sink.commit()).path;
    } catch (error) {
      await sink.abort();
      throw error;
    }
  }

  it('stores an entry over 1 MiB that deflated would expand past the ratio, given whole or streamed (over 8 MB)', async () => {
    const file = await written(DEFAULT_ARCHIVE_LIMITS, [['content/blank.bin', zeros(2_000_000)], ['content/disk.img', streamed(zeros(20_000_000))], ['content/page.html', Buffer.from('<p>'.repeat(1000))]]);
    expect(methods(file)).toBe("{'content/blank.bin': 0, 'content/disk.img': 0, 'content/page.html': 8}\n");
    execFileSync('unzip', ['-tq', file]);
    const source = await ZipPackageSource.open(file, DEFAULT_ARCHIVE_LIMITS);
    try {
      expect(Buffer.from(await source.read('content/disk.img')).equals(zeros(20_000_000))).toBe(true);
    } finally {
      await source.close();
    }
  });

  it('keeps the whole archive within the ratio: entries of 1 MiB of zeros each deflate alone, until the archive would expand too far', async () => {
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxRatio: 10 };
    const file = await written(limits, Array.from({ length: 30 }, (_, i) => [`content/f${String(i).padStart(2, '0')}.bin`, zeros(1024 * 1024)] as [string, Buffer]));
    expect(methods(file)).toMatch(/: 0/);
    expect(methods(file)).toMatch(/: 8/);
    await (await ZipPackageSource.open(file, limits)).close();
  });

  it.each([
    ['more entries than the limit', { ...DEFAULT_ARCHIVE_LIMITS, maxEntries: 2 }, /3 entries, more than the limit of 2; not written/],
    ['more bytes than the limit, known only as they stream', { ...DEFAULT_ARCHIVE_LIMITS, maxExpandedSize: 9 * 1024 * 1024 }, /expand to \d+ bytes, more than the limit of 9437184; not written/],
  ])('refuses %s with ArchiveLimitError, leaving nothing behind', async (_case, limits, message) => {
    const entries: Array<[string, Buffer | AsyncIterable<Uint8Array>]> = [['metadata.json', Buffer.from('{}')], ['content/a.bin', streamed(randomBytes(10 * 1024 * 1024))], ['content/b.html', Buffer.from('<p>')]];
    const attempt = written(limits, entries, 'refused.cap');
    await expect(attempt).rejects.toBeInstanceOf(ArchiveLimitError);
    await expect(attempt).rejects.toThrow(message);
    expect(readdirSync(work.path).filter((name) => name.includes('refused'))).toEqual([]);
  });

  it('refuses an archive it is told ahead will be past the limits before it writes anything', async () => {
    const create = new ZipArchiveWriter(() => ({ ...DEFAULT_ARCHIVE_LIMITS, maxEntries: 2 })).create(join(work.path, 'never-made'), 'x.cap', { overwrite: false, expected: { entries: 3, expandedSize: 0 } });
    await expect(create).rejects.toThrow(ArchiveLimitError);
    expect(existsSync(join(work.path, 'never-made'))).toBe(false);
  });
});

describe('ZipArchiveWriter on a full disk', () => {
  const { disk, onSmallDisk } = smallDiskForTests(256);

  onSmallDisk.each([
    ['given whole', () => randomBytes(600 * 1024)],
    ['streamed (over 8 MB)', () => (async function* () {
      for (let i = 0; i < 10; i++) yield randomBytes(1 << 20);
    })()],
  ])('refuses an entry %s with a WriteFailedError that says the disk is full, leaving nothing behind', async (_case, data) => {
    const sink = await new ZipArchiveWriter().create(disk!.path, 'full.cap', { overwrite: false });
    const attempt = (async () => {
      await sink.add('content/noise.bin', data(), { store: true });
      return sink.commit();
    })();
    await expect(attempt).rejects.toBeInstanceOf(WriteFailedError);
    await expect(attempt).rejects.toThrow(`cannot write full.cap into ${disk!.path}: no space left on the device (ENOSPC)`);
    await sink.abort();
    expect(readdirSync(disk!.path)).toEqual([]);
  });
});

describe('ZipPackageSource', () => {
  it('refuses more entries than the limit from the count the end record declares, before reading the directory', async () => {
    const file = join(work.path, 'many-entries.cap');
    writeZipEntries(file, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`content/${i}.txt`, Buffer.from('x')])));
    // The directory's first record made unreadable: only a count checked first can say ArchiveLimitError.
    const bytes = readFileSync(file);
    bytes.writeUInt32LE(0, bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])));
    writeFileSync(file, bytes);
    await expect(ZipPackageSource.open(file, { ...DEFAULT_ARCHIVE_LIMITS, maxEntries: 10 })).rejects.toThrow(/20 entries, more than the limit of 10/);
    await expect(ZipPackageSource.open(file)).rejects.toThrow(PackageFormatError);
  });

  it('reads entries in place, sorted, with sizes', async () => {
    const source = await ZipPackageSource.open(capPath);
    try {
      expect(source.entries().map((e) => e.path)).toContain('content/index.html');
      expect(source.has('metadata.json')).toBe(true);
      expect(JSON.parse(Buffer.from(await source.read('metadata.json')).toString()).name).toBe('example-site');
      const chunks: Uint8Array[] = [];
      for await (const chunk of source.stream('content/images/logo.png')) chunks.push(chunk);
      expect(Buffer.concat(chunks).equals(readFileSync(join(EXAMPLE_SITE, 'content/images/logo.png')))).toBe(true);
    } finally {
      await source.close();
    }
  });

  it('reads what Info-ZIP zip makes: directory records, extra fields, an archive comment', async () => {
    const tree = join(work.path, 'infozip');
    mkdirSync(join(tree, 'content/deep/er'), { recursive: true });
    writeFileSync(join(tree, 'metadata.json'), '{"name":"z"}');
    writeFileSync(join(tree, 'content/deep/er/page.html'), '<p>'.repeat(5000));
    writeFileSync(join(tree, 'content/naïve café.txt'), 'accents');
    const file = join(work.path, 'infozip.cap');
    execFileSync('zip', ['-q', '-r', '-z', file, '.'], { cwd: tree, input: 'a comment that sits after the end record\n' });
    const source = await ZipPackageSource.open(file);
    try {
      expect(source.entries().map((e) => e.path)).toEqual(['content/deep/er/page.html', 'content/naïve café.txt', 'metadata.json']);
      expect(Buffer.from(await source.read('content/deep/er/page.html')).toString()).toBe('<p>'.repeat(5000));
      expect(Buffer.from(await source.read('content/naïve café.txt')).toString()).toBe('accents');
    } finally {
      await source.close();
    }
  });

  it('reads the names of a directory padded past 4 MiB with entry comments, ASCII or not, each decoded alone', async () => {
    const file = join(work.path, 'commented.cap');
    const script = [
      'import sys, zipfile',
      'with zipfile.ZipFile(sys.argv[1], "w") as z:',
      '    z.writestr("metadata.json", "{}")',
      '    for i in range(70):',
      '        info = zipfile.ZipInfo(f"content/{\'é\' if i % 2 else \'e\'}-{i}.txt")',
      '        info.comment = b"x" * 65000',
      '        z.writestr(info, str(i))',
    ].join('\n');
    execFileSync('python3', ['-c', script, file]);
    const source = await ZipPackageSource.open(file);
    try {
      expect(source.entries()).toHaveLength(71);
      expect(source.entries().map((e) => e.path)).toContain('content/é-69.txt');
      expect(Buffer.from(await source.read('content/é-69.txt')).toString()).toBe('69');
      expect(Buffer.from(await source.read('content/e-68.txt')).toString()).toBe('68');
    } finally {
      await source.close();
    }
  });

  it('reads zip64 end records (65,536 entries, written by Python zipfile)', async () => {
    const file = join(work.path, 'many.cap');
    const script = 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w") as z:\n    for i in range(65536):\n        z.writestr(f"content/f{i}.txt", str(i))';
    execFileSync('python3', ['-c', script, file]);
    const source = await ZipPackageSource.open(file);
    try {
      expect(source.entries()).toHaveLength(65536);
      expect(Buffer.from(await source.read('content/f65535.txt')).toString()).toBe('65535');
    } finally {
      await source.close();
    }
  });

  describe('an entry over 8 MB, written as it is read', () => {
    const photo = randomBytes(9 * 1024 * 1024);
    const text = Buffer.from('<p>a page of text</p>\n'.repeat(450_000));
    let written: { path: string; size: number; sha256: string };
    const chunked = (bytes: Buffer) => (async function* () {
      for (let at = 0; at < bytes.length; at += 1 << 20) yield bytes.subarray(at, at + (1 << 20));
    })();

    beforeAll(async () => {
      const sink = await new ZipArchiveWriter().create(work.path, 'large-entries.cap', { overwrite: true });
      await sink.add('content/a.jpg', chunked(photo), { store: true });
      await sink.add('content/b.html', chunked(text), { store: false });
      await sink.add('metadata.json', Buffer.from('{}'), { store: false });
      written = await sink.commit();
    });

    it('has its CRC-32 and sizes in its local header, no data descriptor, and the SHA-256 of the file as written', () => {
      const bytes = readFileSync(written.path);
      expect(written.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(written.size).toBe(bytes.length);
      // Python's zipfile checks each CRC-32 and size against what it inflates (testzip names the first bad entry).
      const info = 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nfor i in z.infolist(): print(i.filename, i.compress_type, i.flag_bits & 8, i.file_size)\nprint(z.testzip())';
      expect(execFileSync('python3', ['-c', info, written.path], { encoding: 'utf8' })).toBe(`content/a.jpg 0 0 ${photo.length}\ncontent/b.html 8 0 ${text.length}\nmetadata.json 0 0 2\nNone\n`);
      execFileSync('unzip', ['-tq', written.path]);
    });

    (HAS_JAVA ? it : it.skip)('is read by Java\'s ZipInputStream, which goes by local headers alone', () => {
      const described = (bytes: Buffer) => `${bytes.length} ${crc32(bytes).toString(16)}`;
      expect(readWithZipInputStream(written.path)).toEqual({ 'content/a.jpg': described(photo), 'content/b.html': described(text), 'metadata.json': described(Buffer.from('{}')) });
    });
  });

  it('still reads entries whose sizes follow in a zip64 data descriptor, as older packs wrote large entries', async () => {
    const file = join(work.path, 'descriptors.cap');
    const big = randomBytes(9 * 1024 * 1024);
    // Written to a pipe, zipfile cannot go back to a header: every entry gets a data descriptor.
    const script = [
      'import sys, zipfile',
      'with zipfile.ZipFile(sys.stdout.buffer, "w") as z:',
      '    z.writestr("metadata.json", "{}")',
      '    with z.open(zipfile.ZipInfo("content/big.bin"), "w", force_zip64=True) as f: f.write(sys.stdin.buffer.read())',
      '    z.writestr("content/page.html", "<p>" * 1000, compress_type=zipfile.ZIP_DEFLATED)',
    ].join('\n');
    writeFileSync(file, execFileSync('python3', ['-c', script], { input: big, maxBuffer: 64 * 1024 * 1024 }));
    const flags = 'import sys, zipfile\nprint([i.flag_bits & 8 for i in zipfile.ZipFile(sys.argv[1]).infolist()])';
    expect(execFileSync('python3', ['-c', flags, file], { encoding: 'utf8' })).toBe('[8, 8, 8]\n');
    const source = await ZipPackageSource.open(file);
    try {
      expect(Buffer.from(await source.read('content/big.bin')).equals(big)).toBe(true);
      expect(Buffer.from(await source.read('content/page.html')).toString()).toBe('<p>'.repeat(1000));
    } finally {
      await source.close();
    }
  });

  it('reads an entry whose sizes sit in a zip64 extra field (a streamed entry), as unzip -t does', async () => {
    const big = randomBytes(9 * 1024 * 1024);
    const sink = await new ZipArchiveWriter().create(work.path, 'streamed.cap', { overwrite: true });
    await sink.add('metadata.json', Buffer.from('{}'), { store: false });
    await sink.add('content/big.bin', (async function* () {
      for (let at = 0; at < big.length; at += 1 << 20) yield big.subarray(at, at + (1 << 20));
    })(), { store: true });
    const { path } = await sink.commit();
    execFileSync('unzip', ['-tq', path]);
    const source = await ZipPackageSource.open(path);
    try {
      expect(source.entries().find((e) => e.path === 'content/big.bin')?.size).toBe(big.length);
      expect(Buffer.from(await source.read('content/big.bin')).equals(big)).toBe(true);
    } finally {
      await source.close();
    }
  });

  it.each([
    ['truncated before the end record', (zip: Buffer) => zip.subarray(0, zip.length - 10)],
    ['cut inside the central directory', (zip: Buffer) => Buffer.concat([zip.subarray(0, zip.length - 200), zip.subarray(zip.length - 22)])],
    ['with an entry count larger than its directory', (zip: Buffer) => {
      const copy = Buffer.from(zip);
      copy.writeUInt16LE(0xfffe, copy.length - 12);
      return copy;
    }],
    ['with a directory offset past the end of the file', (zip: Buffer) => {
      const copy = Buffer.from(zip);
      copy.writeUInt32LE(0x7fffffff, copy.length - 6);
      return copy;
    }],
  ])('refuses an archive %s with PackageFormatError', async (_case, damage) => {
    const file = join(work.path, 'damaged.cap');
    writeFileSync(file, damage(readFileSync(capPath)));
    await expect(ZipPackageSource.open(file)).rejects.toBeInstanceOf(PackageFormatError);
  });

  it('refuses a file that is not a ZIP', async () => {
    const file = join(work.path, 'not-a-zip.cap');
    writeFileSync(file, 'just text');
    await expect(ZipPackageSource.open(file)).rejects.toBeInstanceOf(PackageFormatError);
    await expect(ZipPackageSource.open(join(work.path, 'absent.cap'))).rejects.toBeInstanceOf(SourceNotFoundError);
    await expect(ZipPackageSource.open(work.path)).rejects.toThrow(/is a directory, not a \.cap archive/);
  });

  // Python's zipfile and unzip walk the whole directory: a count one short hides a file from readers that trust it, and from security.json's check.
  it('refuses a central directory holding records past the count of its end record', async () => {
    const file = join(work.path, 'hidden.cap');
    writeZipEntries(file, { 'metadata.json': Buffer.from('{}'), 'content/a.html': Buffer.from('a'), 'content/evil.html': Buffer.from('<script>') });
    const bytes = readFileSync(file);
    const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    bytes.writeUInt16LE(2, end + 8);
    bytes.writeUInt16LE(2, end + 10);
    writeFileSync(file, bytes);
    await expect(ZipPackageSource.open(file)).rejects.toThrow(PackageFormatError);
    await expect(ZipPackageSource.open(file)).rejects.toThrow(/past its 2 records \(the end record's entry count is wrong\)/);
  });

  // A streaming reader (Java's ZipInputStream, unzip of a pipe) goes by the local header alone.
  it.each([
    ['another name, one that climbs out of the destination', (bytes: Buffer, at: number) => bytes.write('../../evil', at + 30), /names another file/],
    ['another compression method', (bytes: Buffer, at: number) => bytes.writeUInt16LE(8, at + 8), /another compression method/],
    ['another CRC-32', (bytes: Buffer, at: number) => bytes.writeUInt32LE(0, at + 14), /other sizes or another CRC-32/],
    ['another size', (bytes: Buffer, at: number) => bytes.writeUInt32LE(1, at + 22), /other sizes or another CRC-32/],
  ])('refuses to read an entry whose local header declares %s than its central record', async (_what, tamper, message) => {
    const file = join(work.path, 'local.cap');
    writeZipEntries(file, { 'metadata.json': Buffer.from('{}'), 'content/index.html': Buffer.from('<p>honest page</p>') });
    const bytes = readFileSync(file);
    const at = bytes.indexOf(Buffer.from('content/index.html')) - 30;
    tamper(bytes, at);
    writeFileSync(file, bytes);
    const source = await ZipPackageSource.open(file);
    try {
      await expect(source.read('content/index.html')).rejects.toThrow(CorruptEntryError);
      await expect(source.read('content/index.html')).rejects.toThrow(message);
      await expect((async () => { for await (const chunk of source.stream('content/index.html')) void chunk; })()).rejects.toThrow(message);
      expect(Buffer.from(await source.read('metadata.json')).toString()).toBe('{}');
    } finally {
      await source.close();
    }
  });

  it('says an entry that inflates past its declared size does so, in its own words rather than zlib\'s', async () => {
    const file = join(work.path, 'larger.cap');
    writeZipEntries(file, { 'metadata.json': Buffer.from('{}'), 'content/index.html': Buffer.from('<p>'.repeat(1000)) }, { deflated: true });
    const bytes = readFileSync(file);
    const name = Buffer.from('content/index.html');
    const local = bytes.indexOf(name) - 30;
    const central = bytes.indexOf(name, local + 30 + name.length) - 46;
    bytes.writeUInt32LE(10, local + 22);
    bytes.writeUInt32LE(10, central + 24);
    writeFileSync(file, bytes);
    const source = await ZipPackageSource.open(file);
    try {
      await expect(source.read('content/index.html')).rejects.toThrow(new CorruptEntryError('content/index.html', 'inflates beyond its declared size'));
    } finally {
      await source.close();
    }
  });

  it('refuses a name that is not UTF-8, which a reader taking it for CP437 would read otherwise', async () => {
    const file = join(work.path, 'cp437.cap');
    writeZipEntries(file, { 'metadata.json': Buffer.from('{}'), 'content/cafe.html': Buffer.from('<p>caf\u00e9</p>') });
    const bytes = readFileSync(file);
    for (let at = bytes.indexOf('content/cafe.html'); at >= 0; at = bytes.indexOf('content/cafe.html', at + 1)) bytes[at + 11] = 0x82;
    writeFileSync(file, bytes);
    await expect(ZipPackageSource.open(file)).rejects.toThrow(UnsafeEntryError);
    await expect(ZipPackageSource.open(file)).rejects.toThrow(/is not UTF-8/);
  });

  describe('a directory entry', () => {
    const directoryEntry = (data: Buffer, crc = 0) => ({ name: 'content/', data, method: 8 as const, crc, size: 0 });
    const withDirectory = (file: string, directory: RawZipEntry) =>
      writeRawEntriesZip(join(work.path, file), [{ name: 'metadata.json', data: Buffer.from('{}'), method: 0, crc: crc32('{}'), size: 2 }, directory]);

    it.each([
      ['stored, no bytes at all', { ...directoryEntry(Buffer.alloc(0)), method: 0 as const }],
      ['deflated to an empty 2-byte stream, as jar and Python zipfile write it', directoryEntry(Buffer.from([0x03, 0x00]))],
      ['deflated to an empty stored block (5 bytes)', directoryEntry(Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]))],
    ])('is no data when %s', async (_case, directory) => {
      withDirectory('empty-directory.cap', directory);
      const source = await ZipPackageSource.open(join(work.path, 'empty-directory.cap'));
      try {
        expect(source.entries().map((e) => e.path)).toEqual(['metadata.json']);
      } finally {
        await source.close();
      }
    });

    it.each([
      ['a stream that inflates to data its size does not declare', directoryEntry(deflateRawSync(Buffer.from('alias')))],
      ['more compressed bytes than an empty stream needs', directoryEntry(Buffer.concat([Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]), Buffer.from([0x03, 0x00]), Buffer.alloc(8)]))],
      ['a stream that is not deflate', directoryEntry(Buffer.from([0xff, 0xff]))],
    ])('holds data when it has %s', async (_case, directory) => {
      withDirectory('full-directory.cap', directory);
      await expect(ZipPackageSource.open(join(work.path, 'full-directory.cap'))).rejects.toThrow(new UnsafeEntryError('content/', 'a directory entry (trailing "/") that holds data'));
    });

    (HAS_JAR ? it : it.skip)('is read as jar writes it (META-INF/ deflated to 2 bytes)', async () => {
      const tree = join(work.path, 'jar-tree');
      mkdirSync(join(tree, 'content'), { recursive: true });
      writeFileSync(join(tree, 'metadata.json'), '{"name":"j"}');
      writeFileSync(join(tree, 'content/index.html'), '<p>hi</p>');
      const file = join(work.path, 'jar.cap');
      execFileSync('jar', ['cf', file, '-C', tree, '.']);
      const source = await ZipPackageSource.open(file);
      try {
        expect(source.entries().map((e) => e.path)).toEqual(['META-INF/MANIFEST.MF', 'content/index.html', 'metadata.json']);
        expect(Buffer.from(await source.read('content/index.html')).toString()).toBe('<p>hi</p>');
      } finally {
        await source.close();
      }
    });
  });

  it('refuses duplicate entry names with IntegrityError naming them', async () => {
    const file = join(work.path, 'dup.cap');
    writeRawZip(file, [['metadata.json', '{}'], ['content/a.html', 'one'], ['content/a.html', 'two']]);
    await expect(ZipPackageSource.open(file)).rejects.toThrow(IntegrityError);
    await expect(ZipPackageSource.open(file)).rejects.toThrow(/duplicate entry names: content\/a\.html/);
  });

  it.each([['../evil.txt'], ['/etc/evil'], ['C:/evil'], ['content/../../evil'], ['a\\..\\evil']])('refuses the unsafe entry %j', async (name) => {
    const file = join(work.path, 'slip.cap');
    writeRawZip(file, [['metadata.json', '{}'], [name, 'evil']]);
    await expect(ZipPackageSource.open(file)).rejects.toBeInstanceOf(UnsafeEntryError);
  });
});

describe('the raw deflate bytes of an entry, checked before they answer gzip', () => {
  // Two megabytes that deflate to about one: what a gzip answer may hold, expanding to more.
  const LARGE = Buffer.from(randomBytes(1024 * 1024).toString('hex'));
  const raw = deflateRawSync(LARGE);
  const entry = (name: string, data: Buffer): RawZipEntry => ({ name, data, method: 8, crc: crc32(LARGE), size: LARGE.length });

  it('inflate chunk by chunk, so a check never holds what a small entry declares it expands to', async () => {
    const file = join(work.path, 'expanding.cap');
    writeRawEntriesZip(file, [entry('content/log.txt', raw), entry('content/trailed.txt', Buffer.concat([raw, Buffer.from('a gzip trailer could hide here')]))]);
    const source = await ZipPackageSource.open(file);
    try {
      const deflated = source.deflated('content/log.txt')!;
      const hash = createHash('sha256');
      let largest = 0;
      for await (const chunk of deflated.inflate(await deflated.raw())) {
        largest = Math.max(largest, chunk.length);
        hash.update(chunk);
      }
      expect(largest).toBeLessThanOrEqual(LARGE.length / 4);
      expect(hash.digest('hex')).toBe(createHash('sha256').update(LARGE).digest('hex'));
      const trailed = source.deflated('content/trailed.txt')!;
      const consume = async () => {
        for await (const chunk of trailed.inflate(await trailed.raw())) expect(chunk.length).toBeGreaterThan(0);
      };
      await expect(consume()).rejects.toThrow(new CorruptEntryError('content/trailed.txt', 'its deflate stream ends 30 bytes before its data'));
    } finally {
      await source.close();
    }
  });
});

describe('a served archive written over in place', () => {
  it('fails its reads as corrupt entries that say what happened; one put in place with mv keeps the open file', async () => {
    const write = async (name: string, about: string) => {
      const sink = await new ZipArchiveWriter().create(work.path, name, { overwrite: true });
      await sink.add('metadata.json', Buffer.from('{}'), { store: false });
      await sink.add('content/about.html', Buffer.from(about), { store: false });
      await sink.add('content/z.html', Buffer.from('z'.repeat(100)), { store: false });
      return (await sink.commit()).path;
    };
    const served = await write('served.cap', 'first version');
    const source = await ZipPackageSource.open(served);
    try {
      // As `cp new.cap served.cap` does: the same file, other bytes.
      writeFileSync(served, readFileSync(await write('next.cap', `a second, longer version of the page: ${randomBytes(200).toString('hex')}`)));
      await expect(source.read('content/about.html')).rejects.toThrow(/^corrupt entry content\/about\.html: the archive was written over while open \(.*\): put a new \.cap in place with mv, never by writing over the open one, and restart$/);
      await expect(source.read('content/about.html')).rejects.toMatchObject({ code: 'CORRUPT_ENTRY' });
    } finally {
      await source.close();
    }
    const kept = await ZipPackageSource.open(await write('kept.cap', 'kept version'));
    try {
      execFileSync('mv', [await write('other.cap', 'another version entirely, longer'), join(work.path, 'kept.cap')]);
      expect(Buffer.from(await kept.read('content/about.html')).toString()).toBe('kept version');
    } finally {
      await kept.close();
    }
  });
});
