import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { CLI, ROOT, temporaryDirectory } from '../support/paths.js';
import { runPkg, runPkgAsync } from '../support/run-cli.js';
import { startServe } from '../support/serve-process.js';

const work = temporaryDirectory('cap-registry-tools-');
const at = (name: string) => join(work.path, name);
afterAll(() => work.remove());

const index = (directory: string) => JSON.parse(readFileSync(join(directory, 'index.json'), 'utf8')) as { packages: Record<string, { name: string; versions: Record<string, { file: string; sha256: string; size: number }> }> };

describe('registries like Helm\'s', () => {
  it('pkg registry index rebuilds index.json from the .cap files, skipping what is not a package; --merge keeps the entries there', () => {
    const registry = at('registry');
    mkdirSync(registry);
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/site'), '-o', registry]).status).toBe(0);
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/theme'), '-o', registry]).status).toBe(0);
    writeFileSync(join(registry, 'junk-1.0.0.cap'), 'not a package');
    const run = runPkg(['registry', 'index', registry]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Indexed 2 versions of 2 packages: /);
    expect(run.stderr).toMatch(/warning: skipped junk-1\.0\.0\.cap: .*not a ZIP archive/);
    const built = index(registry);
    expect(Object.keys(built.packages)).toEqual(['pkg://example.org/example-site', 'pkg://example.org/example-theme']);
    expect(built.packages['pkg://example.org/example-theme']!.versions['1.1.0']).toMatchObject({ file: 'example-theme-1.1.0.cap', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // What it wrote is a registry: install reads it and checks every byte.
    expect(runPkg(['install', 'pkg://example.org/example-theme', '--registry', registry, '--store', at('store')]).status).toBe(0);
    // --merge: an index kept from elsewhere keeps its entries; without it, only the files found count.
    const other = at('other');
    mkdirSync(other);
    copyFileSync(join(registry, 'example-site-1.0.0.cap'), join(other, 'example-site-1.0.0.cap'));
    writeFileSync(join(other, 'index.json'), JSON.stringify({ packages: { 'pkg://example.org/gone': built.packages['pkg://example.org/example-theme'] } }));
    expect(runPkg(['registry', 'index', other, '--merge']).status).toBe(0);
    expect(Object.keys(index(other).packages)).toEqual(['pkg://example.org/example-site', 'pkg://example.org/gone']);
    expect(runPkg(['registry', 'index', other, '--json']).stdout).toMatch(/"packages": 1/);
    expect(Object.keys(index(other).packages)).toEqual(['pkg://example.org/example-site']);
  });

  it('pkg reactor serve pkg://<guid> without a registry serves the newest version installed in the store that the constraint allows', async () => {
    const registry = at('serve-registry');
    mkdirSync(registry);
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/theme'), '-o', registry]).status).toBe(0);
    expect(runPkg(['registry', 'index', registry]).status).toBe(0);
    const store = at('serve-store');
    expect(runPkg(['install', 'pkg://example.org/example-theme', '--registry', registry, '--store', store]).status).toBe(0);
    const running = await startServe(['pkg://example.org/example-theme', '--store', store], { env: { PKG_REGISTRY: '' } });
    try {
      expect(((await (await fetch(`${running.url}/api/v1/introspect/metadata`)).json()) as { packages: Array<{ version: string }> }).packages[0]!.version).toBe('1.1.0');
    } finally {
      await running.stop();
    }
    // Nothing in the store within the constraint, and no registry to install from: the typed error.
    const run = runPkg(['reactor', 'serve', 'pkg://example.org/example-theme', '--store', store, '--constraint', '^2.0.0'], { env: { PKG_REGISTRY: '' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/RegistryNotConfiguredError: no registry to install pkg:\/\/example.org\/example-theme from/);
  });

  it('keeps two packages of one name and version apart: push and install refuse the second, and a failed install leaves the store as it was', () => {
    const theme = at('theme-other');
    const metadata = JSON.parse(readFileSync(join(ROOT, 'examples/theme/metadata.json'), 'utf8')) as Record<string, unknown>;
    mkdirSync(theme);
    for (const file of readdirSync(join(ROOT, 'examples/theme'), { recursive: true, withFileTypes: true }))
      if (file.isFile()) {
        const relative = join(file.parentPath, file.name).slice(join(ROOT, 'examples/theme').length + 1);
        mkdirSync(join(theme, relative, '..'), { recursive: true });
        copyFileSync(join(file.parentPath, file.name), join(theme, relative));
      }
    writeFileSync(join(theme, 'metadata.json'), JSON.stringify({ ...metadata, guid: 'pkg://other.example/example-theme' }));
    const [ours, theirs] = [at('ours'), at('theirs')];
    for (const [source, out] of [[join(ROOT, 'examples/theme'), ours], [theme, theirs]] as const) expect(runPkg(['package', 'pack', source, '-o', out]).status).toBe(0);
    const registry = at('shared-registry');
    expect(runPkg(['package', 'push', join(ours, 'example-theme-1.1.0.cap'), '--registry', registry]).status).toBe(0);
    const pushed = runPkg(['package', 'push', join(theirs, 'example-theme-1.1.0.cap'), '--registry', registry, '--force']);
    expect(pushed.status).toBe(1);
    expect(pushed.stderr).toMatch(/OutputExistsError: example-theme-1\.1\.0\.cap in registry .* is pkg:\/\/example\.org\/example-theme 1\.1\.0, another package of the same name and version/);
    expect(runPkg(['install', 'pkg://example.org/example-theme', '--registry', registry, '--store', at('both-store')]).status).toBe(0);
    const before = readFileSync(join(at('both-store'), 'example-theme-1.1.0.cap'));
    // A registry of the other one: installing it into the same store would take the first one's file name.
    const elsewhere = at('their-registry');
    expect(runPkg(['package', 'push', join(theirs, 'example-theme-1.1.0.cap'), '--registry', elsewhere]).status).toBe(0);
    const installed = runPkg(['install', 'pkg://other.example/example-theme', '--registry', elsewhere, '--store', at('both-store')]);
    expect(installed.stderr).toMatch(/OutputExistsError: .*example-theme-1\.1\.0\.cap holds pkg:\/\/example\.org\/example-theme 1\.1\.0/);
    // An index entry that lies about what its file is: refused, and what the store held stays.
    const liar = index(elsewhere);
    liar.packages['pkg://other.example/example-theme']!.name = 'example-site';
    writeFileSync(join(elsewhere, 'index.json'), JSON.stringify(liar));
    const lied = runPkg(['install', 'pkg://other.example/example-theme', '--registry', elsewhere, '--store', at('both-store')]);
    expect(lied.stderr).toMatch(/InvalidPackageError: .* is pkg:\/\/other\.example\/example-theme example-theme 1\.1\.0, but the registry index lists it as pkg:\/\/other\.example\/example-theme example-site 1\.1\.0/);
    expect(readdirSync(at('both-store')).sort()).toEqual(['example-theme-1.1.0.cap', 'index.json']);
    expect(readFileSync(join(at('both-store'), 'example-theme-1.1.0.cap')).equals(before)).toBe(true);
    // Names that are no GUID of the registry's, and a store that is a file.
    expect(runPkg(['install', 'constructor', '--registry', registry, '--store', at('both-store')]).stderr).toMatch(/^error: PackageNotFoundError: constructor is not in registry/);
    writeFileSync(at('a-file'), 'x');
    const fileStore = runPkg(['install', 'pkg://example.org/example-theme', '--registry', registry, '--store', at('a-file')]);
    expect(fileStore.status).toBe(2);
    expect(fileStore.stderr).toMatch(/^error: UsageError: the store .*a-file is not a directory/);
    // --merge into an index that does not read: refused, the index left as it was.
    writeFileSync(join(registry, 'index.json'), '{"packages": {,}');
    const merged = runPkg(['registry', 'index', registry, '--merge']);
    expect(merged.status).toBe(1);
    expect(merged.stderr).toMatch(/InvalidRegistryError: .*--merge keeps the entries of the index there, so it must read/);
    expect(readFileSync(join(registry, 'index.json'), 'utf8')).toBe('{"packages": {,}');
  });

  it('pkg search lists matching packages and their versions, newest first, by GUID or name in any case', () => {
    const registry = at('registry');
    const found = runPkg(['search', 'THEME', '--registry', registry]);
    expect(found.status).toBe(0);
    expect(found.stdout.trim()).toBe('example-theme  1.1.0  pkg://example.org/example-theme');
    expect(JSON.parse(runPkg(['search', 'example.org', '--registry', registry, '--json']).stdout).map((hit: { name: string }) => hit.name)).toEqual(['example-site', 'example-theme']);
    expect(runPkg(['search', 'nothing', '--registry', registry]).stdout).toMatch(/No package matches "nothing"/);
    expect(runPkg(['search', 'x'], { env: { PKG_REGISTRY: '' } }).stderr).toMatch(/RegistryNotConfiguredError/);
    expect(runPkg(['registry', 'index', at('nowhere')]).stderr).toMatch(/InvalidRegistryError: registry .*nowhere is not a directory/);
  });

  it('pkg uninstall removes a package from a store, one version or all, and updates its index', () => {
    const store = at('store');
    expect(readdirSync(store)).toContain('example-theme-1.1.0.cap');
    const missing = runPkg(['uninstall', 'pkg://example.org/example-theme', '--version', '9.9.9', '--store', store]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/PackageNotFoundError: pkg:\/\/example\.org\/example-theme 9\.9\.9 is not in store .*; it holds 1\.1\.0/);
    const removed = runPkg(['uninstall', 'pkg://example.org/example-theme', '--version', '1.1.0', '--store', store]);
    expect(removed.status).toBe(0);
    expect(removed.stdout).toBe('Uninstalled pkg://example.org/example-theme 1.1.0\n');
    expect(existsSync(join(store, 'example-theme-1.1.0.cap'))).toBe(false);
    expect(JSON.parse(readFileSync(join(store, 'index.json'), 'utf8'))).toEqual({});
  });

  it('pkg uninstall removes every file of the version, a copy under another name too, so the store no longer resolves it', () => {
    const store = at('copies-store');
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/theme'), '-o', store]).status).toBe(0);
    copyFileSync(join(store, 'example-theme-1.1.0.cap'), join(store, 'theme copy.cap'));
    const removed = runPkg(['uninstall', 'pkg://example.org/example-theme', '--store', store]);
    expect(removed.stdout).toBe('Uninstalled pkg://example.org/example-theme 1.1.0\n');
    expect(removed.status).toBe(0);
    expect(readdirSync(store)).toEqual(['index.json']);
    expect(runPkg(['package', 'info', join(ROOT, 'examples/composite'), '--store', store], { env: { PKG_REGISTRY: '' } }).stdout).toMatch(/unresolved: RegistryNotConfiguredError/);
  });

  it('pkg uninstall rewrites the store index in turn with installs (their lock file), dropping entries whose file is gone', async () => {
    const store = at('locked-store');
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/theme'), '-o', store]).status).toBe(0);
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/site'), '-o', store]).status).toBe(0);
    // Edited by hand: an entry whose file is gone, as install would drop it.
    writeFileSync(join(store, 'index.json'), JSON.stringify({ 'pkg://example.org/example-site': 'example-site-1.0.0.cap', 'pkg://example.org/example-theme': 'example-theme-1.1.0.cap', 'pkg://example.org/gone': 'gone-1.0.0.cap' }));
    // An install is rewriting the index: the uninstall waits for it, or it would write over the install's entry.
    writeFileSync(join(store, 'index.json.lock'), '1');
    const uninstall = runPkgAsync(['uninstall', 'pkg://example.org/example-theme', '--store', store]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(Object.keys(JSON.parse(readFileSync(join(store, 'index.json'), 'utf8')))).toContain('pkg://example.org/example-theme');
    rmSync(join(store, 'index.json.lock'));
    expect(await uninstall).toMatchObject({ status: 0, stdout: 'Uninstalled pkg://example.org/example-theme 1.1.0\n' });
    expect(JSON.parse(readFileSync(join(store, 'index.json'), 'utf8'))).toEqual({ 'pkg://example.org/example-site': 'example-site-1.0.0.cap' });
  });
});

describe('an interrupted install', () => {
  it('leaves no partial file in the store when stopped by SIGINT or SIGTERM mid-download', async () => {
    const registry = at('slow-registry');
    mkdirSync(registry);
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/theme'), '-o', registry]).status).toBe(0);
    expect(runPkg(['registry', 'index', registry]).status).toBe(0);
    const cap = readFileSync(join(registry, 'example-theme-1.1.0.cap'));
    // A registry that sends the index, then the package a byte at a time: the download is under way for as long as the test needs.
    const timers = new Set<NodeJS.Timeout>();
    const server = createServer((request, response) => {
      if (request.url === '/index.json') return void response.end(readFileSync(join(registry, 'index.json')));
      response.writeHead(200, { 'Content-Length': String(cap.length) });
      let sent = 0;
      const timer = setInterval(() => response.write(cap.subarray(sent, ++sent)), 50);
      timers.add(timer);
      response.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        const store = at(`interrupted-${signal}`);
        const child = spawn(process.execPath, [CLI, 'install', 'pkg://example.org/example-theme', '--registry', url, '--store', store], { stdio: 'ignore', env: { ...process.env, PKG_STORE: '', PKG_REGISTRY: '' } });
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        for (let i = 0; i < 1000 && !(existsSync(store) && readdirSync(store).length > 0); i++) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(readdirSync(store)).toEqual([expect.stringMatching(/^example-theme-1\.1\.0\.cap\.[0-9a-f]+\.pkg-partial$/)]);
        child.kill(signal);
        expect(await exited).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(readdirSync(store)).toEqual([]);
      }
      // A reactor installing its source stops as promptly, and takes its temporary workdir with it.
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        const store = at(`serving-${signal}`);
        const tmp = at(`serving-tmp-${signal}`);
        mkdirSync(tmp);
        const child = spawn(process.execPath, [CLI, 'reactor', 'serve', 'pkg://example.org/example-theme', '--registry', url, '--store', store, '--port', '0'], { stdio: 'ignore', env: { ...process.env, PKG_STORE: '', PKG_REGISTRY: '', TMPDIR: tmp } });
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        for (let i = 0; i < 1000 && !(existsSync(store) && readdirSync(store).some((name) => name.endsWith('.pkg-partial'))); i++) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(readdirSync(tmp)).toEqual([expect.stringMatching(/^pkg-reactor-/)]);
        const sent = Date.now();
        child.kill(signal);
        expect(await exited).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(Date.now() - sent).toBeLessThan(5_000);
        expect(readdirSync(store).filter((name) => name.endsWith('.pkg-partial'))).toEqual([]);
        expect(readdirSync(tmp)).toEqual([]);
      }
    } finally {
      for (const timer of timers) clearInterval(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 30_000);
});
