import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DirectoryPackageSource } from '../../src/adapters/fs/directory-package-source.js';
import { FsDirectoryWriter } from '../../src/adapters/fs/fs-directory-writer.js';
import { FsFileWriter } from '../../src/adapters/fs/fs-file-writer.js';
import { makeDirectories } from '../../src/adapters/shared/make-directories.js';
import { ArchiveLimitError, OutputExistsError, SourceNotFoundError, UnsafeEntryError } from '../../src/domain/errors.js';
import { temporaryDirectory } from '../support/paths.js';

let work: ReturnType<typeof temporaryDirectory>;
beforeEach(() => {
  work = temporaryDirectory();
});
afterEach(() => work.remove());

const file = (path: string, content = 'x') => {
  mkdirSync(join(work.path, path, '..'), { recursive: true });
  writeFileSync(join(work.path, path), content);
};

async function* bytes(text: string) {
  yield new TextEncoder().encode(text);
}

describe('DirectoryPackageSource', () => {
  it('lists files sorted with POSIX paths, skipping version-control folders', async () => {
    file('pkg/metadata.json');
    file('pkg/content/b.html');
    file('pkg/content/a/.hidden');
    file('pkg/.git/config');
    const source = await DirectoryPackageSource.open(join(work.path, 'pkg'));
    expect(source.entries().map((e) => e.path)).toEqual(['content/a/.hidden', 'content/b.html', 'metadata.json']);
  });

  it('follows links that stay inside the package', async () => {
    file('pkg/content/real.html', 'real');
    symlinkSync(join(work.path, 'pkg/content/real.html'), join(work.path, 'pkg/content/alias.html'));
    const source = await DirectoryPackageSource.open(join(work.path, 'pkg'));
    expect(Buffer.from(await source.read('content/alias.html')).toString()).toBe('real');
  });

  it('refuses a symbolic link that points outside the package', async () => {
    file('secret.txt', 'secret');
    file('pkg/metadata.json');
    symlinkSync(join(work.path, 'secret.txt'), join(work.path, 'pkg/leak.txt'));
    await expect(DirectoryPackageSource.open(join(work.path, 'pkg'))).rejects.toThrow(UnsafeEntryError);
  });

  it('refuses a linked directory outside the package', async () => {
    file('outside/a.txt');
    file('pkg/metadata.json');
    symlinkSync(join(work.path, 'outside'), join(work.path, 'pkg/content'));
    await expect(DirectoryPackageSource.open(join(work.path, 'pkg'))).rejects.toThrow(/points outside the package/);
  });

  it('follows a linked directory inside the package, its files under the link\'s path', async () => {
    file('pkg/shared/a.txt', 'a');
    file('pkg/shared/deep/b.txt', 'b');
    file('pkg/content/index.html');
    symlinkSync('../shared', join(work.path, 'pkg/content/linked'), 'dir');
    const source = await DirectoryPackageSource.open(join(work.path, 'pkg'));
    expect(source.entries().map((entry) => entry.path)).toEqual(['content/index.html', 'content/linked/a.txt', 'content/linked/deep/b.txt', 'shared/a.txt', 'shared/deep/b.txt']);
    expect(Buffer.from(await source.read('content/linked/deep/b.txt')).toString()).toBe('b');
  });

  it('refuses a link back to a folder that holds it, which would list files forever', async () => {
    file('pkg/content/index.html');
    symlinkSync('..', join(work.path, 'pkg/content/up'), 'dir');
    await expect(DirectoryPackageSource.open(join(work.path, 'pkg'))).rejects.toThrow(/content\/up.*symbolic link back to the package folder, a folder that holds it/);
    file('loop/content/a/index.html');
    symlinkSync('../../content', join(work.path, 'loop/content/a/again'), 'dir');
    await expect(DirectoryPackageSource.open(join(work.path, 'loop'))).rejects.toThrow(/content\/a\/again.*back to content,/);
  });

  it('stops at as many files and folders as an archive may hold, counted through links that fan out (2^n from a few kilobytes)', async () => {
    file('fan/content/d12/leaf.txt', 'hi');
    for (let i = 1; i < 12; i++) {
      mkdirSync(join(work.path, `fan/content/d${i}`), { recursive: true });
      for (const name of ['a', 'b']) symlinkSync(`../d${i + 1}`, join(work.path, `fan/content/d${i}/${name}`), 'dir');
    }
    // 2^11 leaves below d1 alone, and more folders: past a limit of 1,000, short of the default.
    await expect(DirectoryPackageSource.open(join(work.path, 'fan'), 1000)).rejects.toThrow(ArchiveLimitError);
    await expect(DirectoryPackageSource.open(join(work.path, 'fan'), 1000)).rejects.toThrow(/holds more than 1000 files and folders, counted through its links/);
    expect((await DirectoryPackageSource.open(join(work.path, 'fan'))).entries().length).toBeGreaterThan(2048);
  });

  it('refuses a file whose name on disk is not UTF-8, rather than failing on the name it decodes to', async () => {
    file('pkg/content/index.html');
    const content = Buffer.from(join(work.path, 'pkg/content/'));
    writeFileSync(Buffer.concat([content, Buffer.from([0x62, 0xff, 0x2e, 0x74, 0x78, 0x74])]), 'latin-1 name');
    await expect(DirectoryPackageSource.open(join(work.path, 'pkg'))).rejects.toThrow(/not UTF-8/);
    // A name that really holds U+FFFD is valid UTF-8, and read.
    file('ok/content/\uFFFD.txt', 'replacement character');
    expect((await DirectoryPackageSource.open(join(work.path, 'ok'))).entries().map((entry) => entry.path)).toEqual(['content/\uFFFD.txt']);
  });

  it('reads a listed file only while it stays inside the package: a file or folder swapped for a link that leads out is not there', async () => {
    file('secret.txt', 'not for the web');
    file('secret/inner.txt', 'not for the web either');
    file('pkg/content/small.txt', 'small');
    file('pkg/content/large.bin', 'L'.repeat(2 * 1024 * 1024));
    file('pkg/content/sub/page.txt', 'page');
    file('pkg/content/other.txt', 'other');
    const source = await DirectoryPackageSource.open(join(work.path, 'pkg'));
    const streamed = async (path: string) => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of source.stream(path)) chunks.push(chunk);
      return Buffer.concat(chunks).toString();
    };
    expect(new TextDecoder().decode(await source.read('content/small.txt'))).toBe('small');
    expect(await streamed('content/large.bin')).toHaveLength(2 * 1024 * 1024);
    // Swapped after the walk, as whoever may write the content could.
    for (const path of ['small.txt', 'large.bin']) {
      rmSync(join(work.path, 'pkg/content', path));
      symlinkSync(join(work.path, 'secret.txt'), join(work.path, 'pkg/content', path));
    }
    renameSync(join(work.path, 'pkg/content/sub'), join(work.path, 'pkg/content/sub-before'));
    symlinkSync(join(work.path, 'secret'), join(work.path, 'pkg/content/sub'), 'dir');
    rmSync(join(work.path, 'secret/inner.txt'));
    file('secret/page.txt', 'not for the web either');
    await expect(source.read('content/small.txt')).rejects.toThrow(/content\/small\.txt now leads outside the package/);
    await expect(streamed('content/small.txt')).rejects.toBeInstanceOf(SourceNotFoundError);
    await expect(streamed('content/large.bin')).rejects.toBeInstanceOf(SourceNotFoundError);
    await expect(source.read('content/sub/page.txt')).rejects.toBeInstanceOf(SourceNotFoundError);
    // A named pipe in a file's place is not a file: refused at once, not waited on.
    rmSync(join(work.path, 'pkg/content/other.txt'));
    execFileSync('mkfifo', [join(work.path, 'pkg/content/other.txt')]);
    await expect(source.read('content/other.txt')).rejects.toThrow(/content\/other\.txt is no longer a file/);
    // A link that stays inside is followed, as the walk follows it.
    rmSync(join(work.path, 'pkg/content/other.txt'));
    symlinkSync('sub-before/page.txt', join(work.path, 'pkg/content/other.txt'));
    expect(await streamed('content/other.txt')).toBe('page');
  });

  it('refuses a name no package may hold (a line break, a backslash), as pack and every archive reader do', async () => {
    file('nl/content/a\nPASS fake.html');
    await expect(DirectoryPackageSource.open(join(work.path, 'nl'))).rejects.toThrow('unsafe entry "content/a\\nPASS fake.html": contains a control character');
    file('bs/content/a\\b.html');
    await expect(DirectoryPackageSource.open(join(work.path, 'bs'))).rejects.toThrow(/unsafe entry "content\/a\\\\b\.html": contains a backslash/);
  });

  it('refuses two Unicode spellings of one name, which pack and every archive reader refuse, so validate and the reactor do not take what would never pack', async () => {
    file('nfc/content/caf\u00e9.txt');
    file('nfc/content/cafe\u0301.txt');
    await expect(DirectoryPackageSource.open(join(work.path, 'nfc'))).rejects.toThrow(/unsafe entry "content\/caf\u00e9\.txt": is another spelling of "content\/cafe\u0301\.txt"/);
  });

  it('says when the directory does not exist', async () => {
    await expect(DirectoryPackageSource.open(join(work.path, 'nope'))).rejects.toBeInstanceOf(SourceNotFoundError);
  });
});

describe('FsDirectoryWriter', () => {
  it('shows the destination only after commit', async () => {
    const destination = join(work.path, 'out');
    const draft = await new FsDirectoryWriter().create(destination, { replace: false });
    await draft.write('content/a.txt', bytes('hello'));
    expect(existsSync(destination)).toBe(false);
    await draft.commit();
    expect(readdirSync(join(destination, 'content'))).toEqual(['a.txt']);
  });

  it('leaves nothing behind when discarded', async () => {
    const draft = await new FsDirectoryWriter().create(join(work.path, 'out'), { replace: false });
    await draft.write('a.txt', bytes('x'));
    await draft.discard();
    expect(readdirSync(work.path)).toEqual([]);
  });

  it('refuses a non-empty destination unless replacing, and any escaping path', async () => {
    file('out/keep.txt');
    await expect(new FsDirectoryWriter().create(join(work.path, 'out'), { replace: false })).rejects.toBeInstanceOf(OutputExistsError);
    const draft = await new FsDirectoryWriter().create(join(work.path, 'out'), { replace: true });
    await expect(draft.write('../escape.txt', bytes('x'))).rejects.toBeInstanceOf(UnsafeEntryError);
    await draft.discard();
  });
});

describe('FsDirectoryWriter destinations the system refuses', () => {
  it('passes on the system\'s error for a destination below a file or too long a name, not "exists"', async () => {
    const root = temporaryDirectory('cap-occupied-');
    try {
      writeFileSync(join(root.path, 'a-file'), 'x');
      await expect(new FsDirectoryWriter().create(join(root.path, 'a-file', 'x'), { replace: false })).rejects.toMatchObject({ code: 'ENOTDIR' });
      await expect(new FsDirectoryWriter().create(join(root.path, 'n'.repeat(300)), { replace: false })).rejects.toMatchObject({ code: 'ENAMETOOLONG' });
      await expect(new FsDirectoryWriter().create(join(root.path, 'a-file'), { replace: false })).rejects.toThrow(OutputExistsError);
    } finally {
      root.remove();
    }
  });
});

describe('FsFileWriter', () => {
  it('writes a new file once when several write it at once (workers making the workdir\'s session secret): one wins, the others are told it exists', async () => {
    const path = join(work.path, 'session-secret');
    const writer = new FsFileWriter();
    const results = await Promise.allSettled(['a', 'b', 'c', 'd'].map((text) => writer.write(path, bytes(text), { overwrite: false, mode: 0o600 })));
    const won = results.flatMap((result, index) => (result.status === 'fulfilled' ? ['abcd'[index]] : []));
    expect(won).toHaveLength(1);
    for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(OutputExistsError);
    expect(readFileSync(path, 'utf8')).toBe(won[0]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(work.path)).toEqual(['session-secret']);
  });

  it('replaces a file when asked to overwrite', async () => {
    const path = join(work.path, 'out.txt');
    const writer = new FsFileWriter();
    await writer.write(path, bytes('old'), { overwrite: false });
    await expect(writer.write(path, bytes('new'), { overwrite: false })).rejects.toBeInstanceOf(OutputExistsError);
    await writer.write(path, bytes('new'), { overwrite: true });
    expect(readFileSync(path, 'utf8')).toBe('new');
  });
});

describe('makeDirectories', () => {
  it('makes the missing folders, resolving to the first it made, as mkdir -p does', async () => {
    const root = temporaryDirectory('cap-mkdirs-');
    try {
      await expect(makeDirectories(join(root.path, 'a', 'b', 'c'))).resolves.toBe(join(root.path, 'a'));
      expect(existsSync(join(root.path, 'a', 'b', 'c'))).toBe(true);
      await expect(makeDirectories(join(root.path, 'a', 'b'))).resolves.toBeUndefined();
      writeFileSync(join(root.path, 'file'), 'x');
      await expect(makeDirectories(join(root.path, 'file'))).rejects.toMatchObject({ code: 'EEXIST' });
      await expect(makeDirectories(join(root.path, 'file', 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' });
    } finally {
      root.remove();
    }
  });

  it('fails below a folder that refuses children, where node\'s recursive mkdir never returns', async () => {
    await expect(makeDirectories('/proc/no-such-folder/below')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
