import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeRawZip } from '../support/hostile-zip.js';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';

const work = temporaryDirectory('cap-e2e-');
afterAll(() => work.remove());

const listTree = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => `${join(d.parentPath, d.name)}:${statSync(join(d.parentPath, d.name)).mtimeMs}`)
    .sort();

describe('pkg package, as a newcomer uses it', () => {
  let cap: string;
  beforeAll(() => {
    const before = listTree(EXAMPLE_SITE);
    const run = runPkg(['package', 'pack', EXAMPLE_SITE], { cwd: work.path });
    expect(run).toMatchObject({ status: 0 });
    expect(run.stdout).toMatch(/Packed example-site 1\.0\.0/);
    cap = join(work.path, 'example-site-1.0.0.cap');
    expect(listTree(EXAMPLE_SITE)).toEqual(before);
  });

  it('validates the packed .cap with six passing checks', () => {
    const run = runPkg(['package', 'validate', cap]);
    expect(run.status).toBe(0);
    expect(run.stdout.match(/^PASS /gm)).toHaveLength(6);
    const json = JSON.parse(runPkg(['package', 'validate', cap, '--json']).stdout);
    expect(json.valid).toBe(true);
    expect(json.checks.map((c: { check: string }) => c.check)).toEqual(['metadata', 'manifest', 'routes', 'storage', 'security', 'content']);
  });

  it('unpacks into a directory named after the .cap, with the same files', () => {
    const run = runPkg(['package', 'unpack', cap], { cwd: work.path });
    expect(run.status).toBe(0);
    const out = join(work.path, 'example-site-1.0.0');
    expect(readFileSync(join(out, 'content/index.html'), 'utf8')).toBe(readFileSync(join(EXAMPLE_SITE, 'content/index.html'), 'utf8'));
    expect(existsSync(join(out, 'security.json'))).toBe(true);
    expect(runPkg(['package', 'unpack', cap], { cwd: work.path })).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: OutputExistsError: /) });
    expect(runPkg(['package', 'unpack', cap, '-o', join(work.path, 'elsewhere')]).status).toBe(0);
  });

  it('names a refusal of the file system as FileSystemError, its stack only under PKG_DEBUG other than 0', () => {
    const file = join(work.path, 'a-file');
    writeFileSync(file, 'x');
    const refused = runPkg(['package', 'push', cap, '--registry', file], { env: { PKG_DEBUG: '0' } });
    expect(refused).toMatchObject({ status: 1, stderr: `error: FileSystemError: EEXIST: file already exists, mkdir '${file}'\n` });
    expect(runPkg(['package', 'push', cap, '--registry', file], { env: { PKG_DEBUG: '1' } }).stderr).toMatch(/\n\s+at /);
  });

  it('takes as usage errors what would otherwise be misread: a constraint that is no range, --version without one, one place twice, two recipients', () => {
    const usage = (args: string[], message: RegExp) => expect(runPkg(args)).toMatchObject({ status: 2, stderr: expect.stringMatching(message) });
    usage(['install', 'pkg://x', '--constraint', 'banana', '--store', work.path, '--registry', work.path], /^error: UsageError: --constraint takes a semver range/);
    usage(['reactor', 'serve', EXAMPLE_SITE, '--constraint', 'not a range'], /^error: UsageError: --constraint takes a semver range/);
    usage(['uninstall', 'pkg://x', '--store', work.path, '--version'], /^error: UsageError: --version needs the version to uninstall/);
    usage(['package', 'info', cap, '--max-entries', '2K'], /^error: UsageError: --max-entries must be a positive whole number, not "2K"\n/);
    usage(['package', 'info', cap, '--max-expanded-size', 'lots'], /^error: UsageError: --max-expanded-size must be a positive whole number \(sizes may end in K, M, G or T\), not "lots"/);
    usage(['reactor', 'overlay', 'copy', work.path, `${work.path}/`], /^error: UsageError: overlay copy needs two places/);
    usage(['reactor', 'overlay', 'copy', work.path, join(work.path, 'overlays', 'inner')], /^error: UsageError: overlay copy needs two workdirs apart; \S+inner is inside /);
    usage(['reactor', 'overlay', 'copy', join(work.path, 'sub'), work.path], /^error: UsageError: overlay copy needs two workdirs apart; \S+sub is inside /);
    usage(['package', 'encrypt', cap, '--public-key', 'a.pem', '--openpgp', '--recipient', 'b.asc', '-o', join(work.path, 'x.cap')], /^error: UsageError: --public-key is the RSA recipient, --openpgp --recipient the OpenPGP one/);
    // pack's -o is a folder: `-o site.cap` made a folder site.cap holding example-site-1.0.0.cap.
    usage(['package', 'pack', EXAMPLE_SITE, '-o', join(work.path, 'site.cap')], /^error: UsageError: --output is the folder the archive goes into \(as <name>-<version>\.cap\); \S+site\.cap is not one/);
    expect(existsSync(join(work.path, 'site.cap'))).toBe(false);
  });

  it('never replaces the current directory: not for an empty -o, a .cap named .cap, nor a destination holding it', () => {
    const here = join(work.path, 'here');
    mkdirSync(here);
    writeFileSync(join(here, 'keep.txt'), 'precious');
    copyFileSync(cap, join(work.path, '.cap'));
    for (const [args, refusal] of [
      [['-o', '', '-f'], /-o\/--output is empty/],
      [['-o', '.', '-f'], /refusing to replace .*here: it holds the current directory/],
      [['-o', '..', '-f'], /refusing to replace .*: it holds the current directory/],
    ] as const) {
      expect(runPkg(['package', 'unpack', cap, ...args], { cwd: here })).toMatchObject({ status: 2, stderr: expect.stringMatching(refusal) });
    }
    expect(runPkg(['package', 'unpack', join(work.path, '.cap'), '-f'], { cwd: here })).toMatchObject({ status: 2, stderr: expect.stringMatching(/cannot name a directory after .*\.cap: give one with -o/) });
    // Reached through a link, as a shell's $PWD may reach it.
    symlinkSync(here, join(work.path, 'alias'));
    expect(runPkg(['package', 'unpack', cap, '-o', join(work.path, 'alias'), '-f'], { cwd: here })).toMatchObject({ status: 2, stderr: expect.stringMatching(/refusing to replace .*alias: it holds the current directory/) });
    expect(readdirSync(here)).toEqual(['keep.txt']);
  });

  it('never replaces the directory that holds the archive it unpacks', () => {
    const downloads = join(work.path, 'downloads');
    mkdirSync(join(downloads, 'site'), { recursive: true });
    copyFileSync(cap, join(downloads, 'site', 'example-site-1.0.0.cap'));
    for (const destination of [join(downloads, 'site'), downloads]) {
      expect(runPkg(['package', 'unpack', join(downloads, 'site', 'example-site-1.0.0.cap'), '-o', destination, '-f'])).toMatchObject({ status: 2, stderr: expect.stringMatching(/refusing to replace .*: it holds .*example-site-1\.0\.0\.cap, the archive being unpacked/) });
    }
    expect(readdirSync(join(downloads, 'site'))).toEqual(['example-site-1.0.0.cap']);
    // Elsewhere, --force replaces as it says; an archive that is not there is the usual error.
    expect(runPkg(['package', 'unpack', join(downloads, 'site', 'example-site-1.0.0.cap'), '-o', join(downloads, 'out'), '-f']).status).toBe(0);
    expect(runPkg(['package', 'unpack', join(downloads, 'site', 'gone.cap'), '-o', downloads, '-f']).stderr).toMatch(/^error: SourceNotFoundError: /);
  });

  it('inspects the package', () => {
    const info = runPkg(['package', 'info', cap]);
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(/Name: +example-site/);
    expect(info.stdout).toMatch(/Dependencies: none/);
    expect(JSON.parse(runPkg(['package', 'info', cap, '--json']).stdout)).toMatchObject({ name: 'example-site', datasets: ['articles'] });
    expect(JSON.parse(runPkg(['package', 'manifest', cap]).stdout)['content/index.html']).toEqual({ type: 'text/html', visibility: 'exported' });
    expect(JSON.parse(runPkg(['package', 'routes', EXAMPLE_SITE]).stdout).index).toBe('content/index.html');
    expect(JSON.parse(runPkg(['package', 'metadata', cap]).stdout).guid).toBe('pkg://example.org/example-site');
    expect(Object.keys(JSON.parse(runPkg(['package', 'storage', cap]).stdout).storage.dataSets)).toEqual(['articles']);
  });

  it('refuses to overwrite the .cap without --force', () => {
    expect(runPkg(['package', 'pack', EXAMPLE_SITE], { cwd: work.path })).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: OutputExistsError: .*--force/) });
    expect(runPkg(['package', 'pack', EXAMPLE_SITE, '--force'], { cwd: work.path }).status).toBe(0);
    expect(runPkg(['package', 'pack', EXAMPLE_SITE, '-o', join(work.path, 'dist')]).status).toBe(0);
    expect(existsSync(join(work.path, 'dist/example-site-1.0.0.cap'))).toBe(true);
  });
});

describe('pkg package, with bad input', () => {
  it('reports invalid JSON with the file and its position, and exits 1', () => {
    const dir = join(work.path, 'broken');
    cpSync(EXAMPLE_SITE, dir, { recursive: true });
    writeFileSync(join(dir, 'storage.json'), '{\n  "storage": {\n    "dataSets": [\n  }\n}');
    const validate = runPkg(['package', 'validate', dir]);
    expect(validate.status).toBe(1);
    expect(validate.stdout).toMatch(/FAIL storage\n {2}- storage\.json:4:3: invalid JSON: unexpected "}"/);
    const info = runPkg(['package', 'info', dir]);
    expect(info).toMatchObject({ status: 1, stdout: '' });
    expect(info.stderr).toBe('error: ConfigParseError: storage.json:4:3: invalid JSON: unexpected "}"\n');
  });

  it('says when metadata.json is missing', () => {
    const dir = join(work.path, 'no-metadata');
    cpSync(join(EXAMPLE_SITE, 'content'), join(dir, 'content'), { recursive: true });
    expect(runPkg(['package', 'pack', dir], { cwd: work.path }).stderr).toMatch(/^error: PackageFormatError: .* has no metadata\.json\n$/);
    expect(runPkg(['package', 'validate', dir]).stdout).toMatch(/FAIL metadata\n {2}- metadata\.json is missing\n/);
    // An archive made by zipping the package's folder, as Finder, Explorer or zip -r do: where its metadata.json is is said.
    const zipped = join(work.path, 'zipped-folder.cap');
    writeRawZip(zipped, [['site/', ''], ['site/metadata.json', readFileSync(join(EXAMPLE_SITE, 'metadata.json'), 'utf8')], ['site/content/index.html', '<h1>x</h1>'], ['__MACOSX/site/._metadata.json', 'fork']]);
    const hint = "site/metadata.json is one folder down: a package's files sit at its top, as pkg package pack writes them, not inside a folder as zipping the folder puts them";
    expect(runPkg(['package', 'validate', zipped]).stdout).toContain(`FAIL metadata\n  - metadata.json is missing (${hint})\n`);
    expect(runPkg(['package', 'info', zipped]).stderr).toBe(`error: PackageFormatError: ${zipped} has no metadata.json (${hint})\n`);
    // A page named metadata.json is no package one folder down.
    writeRawZip(zipped, [['content/metadata.json', '{}'], ['content/index.html', '<h1>x</h1>']]);
    expect(runPkg(['package', 'validate', zipped]).stdout).toContain('FAIL metadata\n  - metadata.json is missing\n');
  });

  it('refuses a .cap that is not a ZIP', () => {
    const file = join(work.path, 'fake.cap');
    writeFileSync(file, 'not a zip at all');
    expect(runPkg(['package', 'validate', file])).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: PackageFormatError: .* is not a ZIP archive/) });
  });

  it('refuses a pipe or a device at once, not reading (or waiting on) what cannot be read by position', () => {
    const pipe = join(work.path, 'pipe.cap');
    execFileSync('mkfifo', [pipe]);
    for (const location of [pipe, '/dev/zero']) {
      const started = Date.now();
      expect(runPkg(['package', 'validate', location])).toMatchObject({ status: 1, stderr: `error: PackageFormatError: ${location} is not a file or a directory (a pipe or a device): save the package to a file first\n` });
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  });

  it('refuses zip-slip entries on unpack and writes nothing outside the destination', () => {
    const dir = join(work.path, 'slip');
    const file = join(work.path, 'slip.cap');
    writeRawZip(file, [['metadata.json', '{}'], ['../../slipped.txt', 'evil']]);
    const run = runPkg(['package', 'unpack', file, '-o', join(dir, 'out')]);
    expect(run).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: UnsafeEntryError: unsafe entry "\.\.\/\.\.\/slipped\.txt": "\.\." segment/) });
    expect(existsSync(join(work.path, 'slipped.txt'))).toBe(false);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('names tampered files with IntegrityError on unpack and FAIL on validate', () => {
    const file = join(work.path, 'tampered.cap');
    const good = JSON.parse(runPkg(['package', 'validate', EXAMPLE_SITE, '--json']).stdout);
    expect(good.valid).toBe(true);
    const security = JSON.stringify({ security: { integrityChecks: { checksums: { 'metadata.json': '0'.repeat(64) } } } });
    writeRawZip(file, [['metadata.json', readFileSync(join(EXAMPLE_SITE, 'metadata.json'), 'utf8')], ['content/extra.html', '<p>x</p>'], ['security.json', security]]);
    const validate = runPkg(['package', 'validate', file]);
    expect(validate.status).toBe(1);
    expect(validate.stdout).toMatch(/FAIL security\n {2}- checksum mismatch: metadata\.json\n {2}- file not covered by checksums: content\/extra\.html/);
    expect(runPkg(['package', 'unpack', file, '-o', join(work.path, 'tampered')]).stderr).toMatch(/^error: IntegrityError: .*checksum mismatch: metadata\.json; file not covered by checksums: content\/extra\.html/);
    expect(existsSync(join(work.path, 'tampered'))).toBe(false);
  });

  it('answers a usage error with the error first, a two-line hint, and exit 2', () => {
    const command = runPkg(['package', 'frobnicate', 'x']);
    expect(command.status).toBe(2);
    expect(command.stderr.split('\n')).toEqual(['error: UsageError: Unknown commands: frobnicate, x', 'usage: pkg package', 'run "pkg package --help" for its options and examples', '']);
    const option = runPkg(['package', 'validate', EXAMPLE_SITE, '--bogus']);
    expect(option).toMatchObject({ status: 2, stderr: expect.stringMatching(/^error: UsageError: Unknown argument: bogus\nusage: pkg package validate <path>.*\nrun "pkg package validate --help"/) });
    expect(runPkg([]).status).toBe(2);
    const repeated = runPkg(['install', 'pkg://example.org/x', '--constraint', '^1.0.0', '--constraint', '^2.0.0']);
    expect(repeated).toMatchObject({ status: 2, stderr: expect.stringMatching(/^error: UsageError: --constraint was given more than once/) });
    expect(repeated.stderr).not.toMatch(/InternalError|\n\s+at /);
    expect(runPkg(['package', 'pak', 'x']).stderr).toMatch(/^error: UsageError: unknown command "pak": did you mean "pack"\?/);
    // A command that ran and failed stays exit 1.
    expect(runPkg(['package', 'validate', join(work.path, 'nowhere')]).status).toBe(1);
  });

  it('reports errors as JSON on stdout under --json', () => {
    const missing = runPkg(['package', 'diff', EXAMPLE_SITE, join(work.path, 'nowhere'), '--json']);
    expect(missing.status).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({ error: { name: 'SourceNotFoundError', message: expect.stringContaining('nowhere') } });
    const usage = runPkg(['package', 'diff', EXAMPLE_SITE, '--json']);
    expect(usage.status).toBe(2);
    expect(JSON.parse(usage.stdout).error.name).toBe('UsageError');
  });

  it('prints a shell completion script that completes real commands', () => {
    const script = runPkg(['completion']);
    expect(script.status).toBe(0);
    expect(script.stdout).toMatch(/pkg completion >> ~\/\.bashrc/);
    const words = runPkg(['--get-yargs-completions', 'package', 'ver']);
    expect(words.stdout.split('\n')).toContain('verify-signature');
    // The shell may be named, whatever $SHELL says; one it has no script for is refused alone.
    const bash = runPkg(['completion', 'bash'], { env: { SHELL: '/bin/zsh' } });
    expect([bash.status, bash.stderr]).toEqual([0, '']);
    expect(bash.stdout).toMatch(/complete -o bashdefault/);
    const zsh = runPkg(['completion', 'zsh'], { env: { SHELL: '/bin/bash' } });
    expect([zsh.status, zsh.stderr]).toEqual([0, '']);
    expect(zsh.stdout).toMatch(/^#compdef pkg/);
    const fish = runPkg(['completion', 'fish']);
    expect([fish.status, fish.stdout]).toEqual([2, '']);
    expect(fish.stderr).toMatch(/^error: UsageError: pkg completion writes a bash or zsh script \(got "fish"\)/);
    for (const help of [['completion', '--help'], ['completion', 'zsh', '-h']]) expect(runPkg(help)).toMatchObject({ status: 0, stdout: expect.stringMatching(/^pkg completion \[bash\|zsh\]\n\nPrint a shell completion script/) });
  });

  it('prints no completion script for a completion command line it refuses, whatever surrounds the word', () => {
    // `pkg completion ... >> ~/.bashrc`: a refused line must append nothing, and say why in one line, never a stack trace.
    for (const args of [['completion', 'bash', 'extra'], ['completion', '--bogus'], ['--max-ratio', '5', 'completion'], ['--max-ratio', 'x', 'completion'], ['--max-ratio', 'x', 'completion', 'bash'], ['nope', 'completion']]) {
      const run = runPkg(args);
      expect([args, run.status, run.stdout]).toEqual([args, 2, '']);
      expect(run.stderr).toMatch(/^error: UsageError: .*\nusage: pkg completion \[bash\|zsh\]\nrun "pkg completion --help" for its options and examples\n$/);
    }
    const json = runPkg(['completion', '--json']);
    expect([json.status, JSON.parse(json.stdout).error.name]).toEqual([2, 'UsageError']);
    // A completion that is another command's argument is that command's.
    expect(runPkg(['search', 'completion', '--registry', join(work.path, 'no-registry')]).stderr).toMatch(/^error: InvalidRegistryError: /);
  });

  it('answers --help on every command and --version', () => {
    for (const args of [['--help'], ['package', '--help'], ['package', 'pack', '--help'], ['package', 'validate', '--help'], ['package', 'info', '--help']]) {
      expect(runPkg(args)).toMatchObject({ status: 0, stdout: expect.stringMatching(/Options:/) });
    }
    expect(runPkg(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('pkg output into a pipe that closes early', () => {
  it('ends quietly, without a stack trace', async () => {
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../support/paths.js');
    const child = spawn(process.execPath, [CLI, 'package', 'info', EXAMPLE_SITE], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The reader is gone before the first line is written: every write meets a closed pipe.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).not.toMatch(/EPIPE|at .*\(/);
    expect(code).toBe(0);
  });

  it('lets the reactor serve on when nobody reads its lines, and stop as a signal stops it: requests answered, temporary workdir removed', async () => {
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../support/paths.js');
    const child = spawn(process.execPath, [CLI, 'reactor', 'serve', EXAMPLE_SITE, '--port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => /Workdir: .*\n/.test((stdout += chunk.toString())) && resolve()));
    const url = /Reactor listening on (\S+)/.exec(stdout)![1]!;
    const workdir = /Workdir: (\S+) \(temporary\)/.exec(stdout)![1]!;
    // `pkg reactor serve ... | head -3`: the reader is gone, and each request's line meets a closed pipe.
    child.stdout.destroy();
    for (let request = 0; request < 3; request++) {
      expect((await fetch(`${url}/`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(workdir)).toBe(false);
    expect(stderr).not.toMatch(/EPIPE|at .*\(/);
  });
});

describe('pkg output of a stranger\'s text', () => {
  it('shows the control and bidirectional characters a package puts in its metadata, and lets the terminal act on none', () => {
    const site = join(work.path, 'escapes');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    const metadata = JSON.parse(readFileSync(join(site, 'metadata.json'), 'utf8')) as Record<string, unknown>;
    metadata.description = 'Nice \u001b[2J\u001b]0;pwned\u0007 package\r\nResult: valid (6 checks passed)';
    metadata.author = '\u202eevil\u202c \u009b31m';
    writeFileSync(join(site, 'metadata.json'), JSON.stringify(metadata));
    for (const args of [['package', 'info', site], ['package', 'validate', site]]) {
      const run = runPkg(args);
      expect(run.status).toBe(0);
      // eslint-disable-next-line no-control-regex -- finding control characters is the point
      expect(run.stdout + run.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
    const info = runPkg(['package', 'info', site]).stdout;
    expect(info).toContain('Description: Nice \\u001b[2J\\u001b]0;pwned\\u0007 package\\u000d\\u000aResult: valid (6 checks passed)\n');
    expect(info).toContain('Author:      \\u202eevil\\u202c \\u009b31m\n');
    // A test's name and URL are the author's text too.
    writeFileSync(join(site, 'tests/spoof.yaml'), 'tests:\n  - name: "x\\nPASS every test (route, tests/site.yaml)"\n    type: route\n    url: "/nowhere\\r\\nPASS"\n    expected_status: 200\n');
    const tested = runPkg(['package', 'test', site]).stdout;
    expect(tested).toContain('FAIL x\\u000aPASS every test (route, tests/site.yaml) (route, tests/spoof.yaml)\n');
    expect(tested).toContain('  - GET /nowhere\\u000d\\u000aPASS: expected status 200, got 404\n');
    // Item ids and keys quoted by diff and validate too.
    const other = join(work.path, 'escapes-other');
    cpSync(site, other, { recursive: true });
    writeFileSync(join(other, 'data/articles.json'), JSON.stringify([{ id: 'hello-world', title: 't', body: 'b', 'x\nPASS content': 1 }]));
    expect(runPkg(['package', 'diff', site, other]).stdout).toContain('    ~ hello-world\n');
    const checked = runPkg(['package', 'validate', other]).stdout;
    expect(checked).toMatch(/^ {2}- dataset articles: .*x\\u000aPASS content/m);
    expect(checked).not.toMatch(/^PASS content\n(?!PASS|FAIL|Result)/m);
    // --json is JSON still, and carries the text as it is.
    expect(JSON.parse(runPkg(['package', 'info', site, '--json']).stdout).description).toBe(metadata.description);
  });
});

describe('pkg package validate, with a schema pattern JavaScript would backtrack on for ever', () => {
  const siteWith = (name: string, pattern: string): string => {
    const site = join(work.path, name);
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    writeFileSync(join(site, 'data/articles.schema.json'), JSON.stringify({ type: 'object', properties: { id: { type: 'string', pattern } } }));
    writeFileSync(join(site, 'data/articles.json'), JSON.stringify([{ id: `${'a'.repeat(34)}!`, title: 't', body: 'b' }]));
    return site;
  };

  it('matches a leading lookahead and the rest in linear time: the item fails its pattern at once', () => {
    const started = Date.now();
    const run = runPkg(['package', 'validate', siteWith('lookahead-site', '^(?=a)(a+)+$')]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/row 1\/id must match pattern "\^\(\?=a\)\(a\+\)\+\$"/);
  });

  it('refuses a pattern RE2 cannot match in linear time, naming the schema, where the pattern is and why', () => {
    const started = Date.now();
    const run = runPkg(['package', 'validate', siteWith('backreference-site', '^(a+)+\\1$'), '--json']);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.status).toBe(1);
    const storage = (JSON.parse(run.stdout) as { checks: { check: string; errors: string[] }[] }).checks.find((c) => c.check === 'storage')!;
    expect(storage.errors).toEqual([expect.stringContaining('data/articles.schema.json: pattern "^(a+)+\\\\1$" at /properties/id/pattern holds a backreference')]);
  });
});
