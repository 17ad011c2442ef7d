import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { failingServe } from '../support/serve-process.js';
import { writeDeflatedZip, writeOverlappingZip } from '../support/crafted-zip.js';
import { writeRawZip } from '../support/hostile-zip.js';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-hostile-archives-');
const at = (name: string) => join(work.path, name);
afterAll(() => work.remove());

const metadata = JSON.stringify({ name: 'hostile', version: '1.0.0', description: 'd', guid: 'pkg://example.org/hostile', uuid: '123e4567-e89b-42d3-a456-426614174000' });
const leftovers = () => readdirSync(work.path).filter((name) => name.includes('partial'));

/** Every reader of an archive, each run as a user would; each must refuse with the error named. */
async function everyReaderRefuses(cap: string, error: RegExp, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const commands = [
    ['package', 'validate', cap],
    ['package', 'info', cap],
    ['package', 'unpack', cap, '-o', at(`out-${Math.random()}`)],
    ['package', 'sign', cap, '--key', at('key.pem'), '-o', at(`signed-${Math.random()}.cap`)],
    ['package', 'push', cap, '--registry', at('registry')],
    ['package', 'diff', cap, cap],
  ];
  for (const args of commands) {
    const started = Date.now();
    const run = runPkg(args, { env });
    expect({ args, status: run.status }).toEqual({ args, status: 1 });
    expect(run.stderr).toMatch(error);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(20_000);
  }
  const served = await failingServe([cap, '--workdir', at(`served-${Math.random()}`)], { env });
  expect(served.code).toBe(1);
  expect(served.stderr).toMatch(error);
  expect(leftovers()).toEqual([]);
}

beforeAll(() => {
  mkdirSync(at('registry'));
  execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', at('key.pem')], { stdio: 'pipe' });
});

describe('archive bombs', () => {
  it('an entry that inflates more than 1000 times (64 MiB of zeros in 64 KB) is refused by every reader, nothing inflated', async () => {
    const cap = at('zeros.cap');
    writeDeflatedZip(cap, [['metadata.json', metadata], ['content/zeros.bin', { zeros: 64 * 1024 * 1024 }]]);
    await everyReaderRefuses(cap, /ArchiveLimitError: .*content\/zeros\.bin expands from \d+ to 67108864 bytes, more than 1000 times/);
  });

  it('entries sharing one deflate stream are refused, whatever their sizes', async () => {
    const cap = at('overlap.cap');
    writeOverlappingZip(cap, ['metadata.json', 'content/a.bin', 'content/b.bin', 'content/c.bin'], Buffer.from(metadata));
    await everyReaderRefuses(cap, /ArchiveLimitError: .*share bytes/);
  });

  it('the limits are options and environment variables: a lower total, ratio or entry count refuses an honest package', async () => {
    expect(runPkg(['package', 'pack', EXAMPLE_SITE, '-o', work.path]).status).toBe(0);
    const cap = at('example-site-1.0.0.cap');
    expect(runPkg(['package', 'validate', cap]).status).toBe(0);
    expect(runPkg(['package', 'validate', cap, '--max-expanded-size', '1K']).stderr).toMatch(/ArchiveLimitError: .*expand to \d+ bytes, more than the limit of 1024/);
    expect(runPkg(['package', 'validate', cap], { env: { PKG_MAX_ENTRIES: '3' } }).stderr).toMatch(/ArchiveLimitError: .*entries, more than the limit of 3/);
    expect(runPkg(['package', 'validate', cap], { env: { PKG_MAX_RATIO: 'lots' } })).toMatchObject({ status: 2, stderr: expect.stringMatching(/UsageError: PKG_MAX_RATIO="lots" must be a positive whole number/) });
    const served = await failingServe([cap, '--max-expanded-size', '1K']);
    expect(served.stderr).toMatch(/ArchiveLimitError/);
  });
});

describe('what pack writes', () => {
  it('is read by every reader under the same limits: a file of zeros is stored rather than deflated past the ratio; too many entries are refused unwritten', async () => {
    const tree = at('zeros-tree');
    mkdirSync(join(tree, 'content'), { recursive: true });
    writeFileSync(join(tree, 'metadata.json'), metadata);
    writeFileSync(join(tree, 'content/blank.bin'), Buffer.alloc(2_000_000));
    expect(runPkg(['package', 'pack', tree, '-o', at('zeros-out')]).status).toBe(0);
    const validated = runPkg(['package', 'validate', at('zeros-out/hostile-1.0.0.cap')]);
    expect({ status: validated.status, stderr: validated.stderr }).toEqual({ status: 0, stderr: '' });
    const refused = runPkg(['package', 'pack', tree, '-o', at('few-out'), '--max-entries', '2']);
    expect(refused).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: ArchiveLimitError: .*hostile-1\.0\.0\.cap: 5 entries, more than the limit of 2; not written/) });
    expect(existsSync(at('few-out'))).toBe(false);
    expect(leftovers()).toEqual([]);
  });
});

describe('documents too large to be one', () => {
  it('a routes.json of 80 MB (in about 1 MB), or an HTML page of that size, is refused unread, the page left unscanned with a warning', async () => {
    const cap = at('large-routes.cap');
    // Spaces with a newline here and there: it deflates about 80 times, within every archive limit.
    const script = [
      'import sys, random, zipfile',
      'random.seed(1)',
      'chunk = bytes(10 if random.random() < 0.01 else 32 for _ in range(1 << 20))',
      'with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:',
      '    z.writestr("metadata.json", sys.argv[2])',
      '    z.writestr("content/index.html", "<p>hello")',
      '    z.writestr(sys.argv[3], b\'{"routes": {\' + chunk * 80 + b"}}")',
    ].join('\n');
    execFileSync('python3', ['-c', script, cap, metadata, 'routes.json']);
    const validate = runPkg(['package', 'validate', cap]);
    expect(validate.status).toBe(1);
    expect(validate.stdout).toMatch(/FAIL routes\n {2}- routes\.json: holds 83886094 bytes, more than the 64 MiB such a file may \(refused unread\)/);
    const served = await failingServe([cap, '--workdir', at('served-large-routes')]);
    expect(served.stderr).toMatch(/ConfigParseError: routes\.json: holds 83886094 bytes, more than the 64 MiB/);
    expect(served.stderr).not.toMatch(/\n\s+at /);

    const page = at('large-page.cap');
    execFileSync('python3', ['-c', script.replace('b\'{"routes": {\'', 'b"<html>"').replace('b"}}"', 'b"</html>"').replace('chunk * 80', 'chunk * 130'), page, metadata, 'content/large.html']);
    const checked = runPkg(['package', 'validate', page]);
    expect(checked.status).toBe(0);
    expect(checked.stdout).toMatch(/PASS content\n {2}! content\/large\.html is not scanned for external references: larger than 128 MiB/);
  });
});

describe('entry names that alias another', () => {
  it.each([
    ['a "." segment', [['content/a.txt', 'real'], ['content/a.txt/.', 'alias']], /UnsafeEntryError: unsafe entry "content\/a\.txt\/\.": "\." segment/],
    ['an empty segment', [['content//a.txt', 'alias']], /UnsafeEntryError: unsafe entry "content\/\/a\.txt": empty segment/],
    ['a directory entry that holds data', [['content/a.txt', 'real'], ['content/a.txt/', 'alias']], /UnsafeEntryError: unsafe entry "content\/a\.txt\/": a directory entry/],
    ['two Unicode spellings of one name', [['content/caf\u00e9.html', 'nfc'], ['content/cafe\u0301.html', 'nfd']], /UnsafeEntryError: .*another spelling of "content\/café\.html"/],
    ['a file below a file', [['content/a.txt', 'file'], ['content/a.txt/b.txt', 'below']], /UnsafeEntryError: unsafe entry "content\/a\.txt\/b\.txt": lies below "content\/a\.txt", which is a file/],
    ['a name longer than a file system holds', [[`content/${'a'.repeat(300)}.html`, 'long']], /UnsafeEntryError: unsafe entry "content\/a{300}\.html": a file or folder name takes at most 255 bytes/],
    ['a control character (a line break, an ESC)', [['content/a\nb.html', 'spoof'], ['content/\u001b[2J.html', 'escape']], /UnsafeEntryError: unsafe entry "content\/a\\nb\.html": contains a control character/],
  ])('%s is refused by every reader with UnsafeEntryError', async (name, entries, error) => {
    const cap = at(`${name.replace(/\W+/g, '-')}.cap`);
    writeRawZip(cap, [['metadata.json', metadata], ...(entries as Array<[string, string]>)]);
    await everyReaderRefuses(cap, error);
  });

  it('a symbolic link entry, which unzip makes a link of (here to /etc/passwd), is refused by every reader with UnsafeEntryError', async () => {
    const cap = at('symlink-entry.cap');
    const script = [
      'import sys, zipfile',
      'with zipfile.ZipFile(sys.argv[1], "w") as z:',
      '    z.writestr("metadata.json", sys.argv[2])',
      '    z.writestr("content/index.html", "<p>hello")',
      '    link = zipfile.ZipInfo("content/passwd.html")',
      '    link.create_system = 3',
      '    link.external_attr = 0o120777 << 16',
      '    z.writestr(link, "/etc/passwd")',
    ].join('\n');
    execFileSync('python3', ['-c', script, cap, metadata]);
    // The other reading: unzip makes the entry a link to the file it names.
    execFileSync('unzip', ['-q', cap, '-d', at('symlink-unzipped')]);
    expect(lstatSync(at('symlink-unzipped/content/passwd.html')).isSymbolicLink()).toBe(true);
    await everyReaderRefuses(cap, /UnsafeEntryError: unsafe entry "content\/passwd\.html": a symbolic link entry/);
  });

  it('pack refuses a directory that holds two Unicode spellings of one name', () => {
    const directory = at('nfc-nfd');
    mkdirSync(join(directory, 'content'), { recursive: true });
    writeFileSync(join(directory, 'metadata.json'), metadata);
    writeFileSync(join(directory, 'content/caf\u00e9.html'), 'nfc');
    writeFileSync(join(directory, 'content/cafe\u0301.html'), 'nfd');
    const run = runPkg(['package', 'pack', directory, '-o', work.path]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/UnsafeEntryError: .*another spelling/);
    expect(existsSync(at('hostile-1.0.0.cap'))).toBe(false);
  });
});

describe('an interrupted unpack', () => {
  it('leaves nothing behind when stopped by SIGINT or SIGTERM mid-way', async () => {
    const directory = at('large');
    mkdirSync(join(directory, 'content'), { recursive: true });
    writeFileSync(join(directory, 'metadata.json'), metadata);
    for (let i = 0; i < 24; i++) writeFileSync(join(directory, `content/noise-${i}.bin`), randomBytes(4 * 1024 * 1024));
    expect(runPkg(['package', 'pack', directory, '-o', at('large-out')]).status).toBe(0);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const destination = at(`unpacked-${signal}`);
      const child = spawn(process.execPath, [CLI, 'package', 'unpack', at('large-out/hostile-1.0.0.cap'), '-o', destination], { stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // Wait for the draft directory to appear, then interrupt.
      for (let i = 0; i < 500 && !readdirSync(work.path).some((name) => name.startsWith(`.unpacked-${signal}.`)); i++) await new Promise((resolve) => setTimeout(resolve, 5));
      child.kill(signal);
      const code = await exited;
      expect([signal === 'SIGINT' ? 130 : 143, 0]).toContain(code);
      expect(leftovers()).toEqual([]);
      if (code !== 0) expect(existsSync(destination)).toBe(false);
    }
  });
});
