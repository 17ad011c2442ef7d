import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { LIB_GUID, SITE_GUID, writeCompositeFixtures } from '../support/composite-fixtures.js';
import { makeCertificates, startNginx, type StaticHttps } from '../support/nginx-registry.js';
import { temporaryDirectory } from '../support/paths.js';
import { runPkg, runPkgAsync } from '../support/run-cli.js';
import { startServe } from '../support/serve-process.js';

const work = temporaryDirectory('cap-registry-e2e-');
const www = join(work.path, 'www');
const caps = join(work.path, 'caps');
const PASSWORD = 's3cret-Pa55';
let nginx: StaticHttps;
/** NODE_EXTRA_CA_CERTS is read when a process starts, so every child gets it; no registry or store leaks in from outside. */
let env: NodeJS.ProcessEnv;
let fixtures: ReturnType<typeof writeCompositeFixtures>;

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const store = (name: string) => join(work.path, 'stores', name);
const capsIn = (directory: string) => (existsSync(directory) ? readdirSync(directory).filter((file) => file.endsWith('.cap') || file.includes('partial')) : []);
const registry = (path: string) => `${nginx.url}/${path}/`;

beforeAll(async () => {
  const certs = makeCertificates(mkdirSync(join(work.path, 'certs'), { recursive: true })!);
  env = { NODE_EXTRA_CA_CERTS: certs.ca, PKG_STORE: '', PKG_REGISTRY: '' };
  fixtures = writeCompositeFixtures(join(work.path, 'src'));
  for (const directory of [...Object.values(fixtures.lib), fixtures.site]) expect(runPkg(['package', 'pack', directory, '-o', caps])).toMatchObject({ status: 0 });
  // The registry nginx serves is filled by pkg package push, as a publisher would.
  for (const cap of readdirSync(caps)) expect(runPkg(['package', 'push', join(caps, cap), '--registry', join(www, 'good')])).toMatchObject({ status: 0 });
  const index = () => JSON.parse(readFileSync(join(www, 'good/index.json'), 'utf8'));
  const variant = (name: string, change: (document: { packages: Record<string, { name: string; versions: Record<string, { file: string; sha256: string; size: number }> }> }) => void) => {
    cpSync(join(www, 'good'), join(www, name), { recursive: true });
    const document = index();
    change(document);
    writeFileSync(join(www, name, 'index.json'), JSON.stringify(document));
  };
  variant('tampered', (d) => (d.packages[LIB_GUID]!.versions['1.4.0']!.sha256 = 'f'.repeat(64)));
  variant('wrong-size', (d) => (d.packages[LIB_GUID]!.versions['1.4.0']!.size += 1));
  variant('missing-file', (d) => (d.packages[LIB_GUID]!.versions['1.4.0']!.file = 'gone/ui-lib-1.4.0.cap'));
  variant('not-semver', (d) => (d.packages[LIB_GUID]!.versions['latest'] = d.packages[LIB_GUID]!.versions['1.4.0']!));
  mkdirSync(join(www, 'malformed'));
  writeFileSync(join(www, 'malformed/index.json'), '{"packages": {');
  mkdirSync(join(www, 'wrong-shape'));
  writeFileSync(join(www, 'wrong-shape/index.json'), JSON.stringify({ packages: [{ guid: LIB_GUID }] }));
  mkdirSync(join(www, 'empty'));
  const htpasswd = join(work.path, 'htpasswd');
  writeFileSync(htpasswd, `reader:${execFileSync('openssl', ['passwd', '-apr1', PASSWORD]).toString().trim()}\n`);
  nginx = await startNginx({
    root: www,
    workdir: work.path,
    ...certs,
    locations: `
    location /broken/ { return 500; }
    location /moved/ { return 302 http://example.invalid/good/index.json; }
    location /private/ { auth_basic "registry"; auth_basic_user_file ${htpasswd}; alias ${www}/good/; }`,
  });
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  work.remove();
});

describe('publishing with pkg package push', () => {
  it('records every pushed version with the sha256 and size of the copied file', () => {
    const index = JSON.parse(readFileSync(join(www, 'good/index.json'), 'utf8'));
    expect(Object.keys(index.packages[LIB_GUID].versions).sort()).toEqual(['1.0.0', '1.4.0', '2.0.0']);
    for (const version of ['1.0.0', '1.4.0', '2.0.0']) {
      const cap = join(caps, `ui-lib-${version}.cap`);
      expect(index.packages[LIB_GUID].versions[version]).toEqual({ file: `ui-lib-${version}.cap`, sha256: sha256(cap), size: statSync(cap).size });
      expect(sha256(join(www, 'good', `ui-lib-${version}.cap`))).toBe(sha256(cap));
    }
    expect(index.packages[SITE_GUID].name).toBe('site');
    expect(readdirSync(join(www, 'good')).filter((file) => file.includes('partial') || file.endsWith('.lock'))).toEqual([]);
  });

  it('says so when the same bytes are pushed again, and refuses other bytes for a published version without --force', () => {
    const again = runPkg(['package', 'push', join(caps, 'ui-lib-1.0.0.cap'), '--registry', join(www, 'good')]);
    expect(again).toMatchObject({ status: 0, stdout: expect.stringContaining('is already in') });
    const other = join(work.path, 'other-1.0.0');
    cpSync(fixtures.lib['1.0.0']!, other, { recursive: true });
    writeFileSync(join(other, 'content/style.css'), 'changed\n');
    const dir = join(work.path, 'changed-caps');
    expect(runPkg(['package', 'pack', other, '-o', dir]).status).toBe(0);
    const scratch = join(work.path, 'scratch-registry');
    cpSync(join(www, 'good'), scratch, { recursive: true });
    const refused = runPkg(['package', 'push', join(dir, 'ui-lib-1.0.0.cap'), '--registry', scratch]);
    expect(refused).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: OutputExistsError: ui-lib 1\.0\.0 .* --force/) });
    expect(runPkg(['package', 'push', join(dir, 'ui-lib-1.0.0.cap'), '--registry', scratch, '--force']).status).toBe(0);
    expect(JSON.parse(readFileSync(join(scratch, 'index.json'), 'utf8')).packages[LIB_GUID].versions['1.0.0'].sha256).toBe(sha256(join(dir, 'ui-lib-1.0.0.cap')));
  });

  it('refuses an https registry (read-only) and a package that does not validate', () => {
    expect(runPkg(['package', 'push', join(caps, 'ui-lib-1.0.0.cap'), '--registry', registry('good')], { env })).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(/^error: InvalidRegistryError: registry https:\/\/127\.0\.0\.1:\d+\/good\/ is read-only/),
    });
    const broken = join(work.path, 'broken');
    cpSync(fixtures.lib['1.0.0']!, broken, { recursive: true });
    rmSync(join(broken, 'content/old.txt'));
    expect(runPkg(['package', 'pack', broken, '-o', join(work.path, 'broken-caps')]).status).toBe(0);
    const refused = runPkg(['package', 'push', join(work.path, 'broken-caps/ui-lib-1.0.0.cap'), '--registry', join(work.path, 'never')]);
    expect(refused).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: InvalidPackageError: .* does not validate, so it is not pushed: manifest: resource content\/old\.txt does not exist/) });
    expect(existsSync(join(work.path, 'never'))).toBe(false);
  });
});

describe('installing from the https registry', () => {
  it('installs the newest version that satisfies the constraint, checked, into the store', () => {
    const s = store('install');
    const run = runPkg(['install', LIB_GUID, '--constraint', '^1.0.0', '--registry', registry('good'), '--store', s], { env });
    expect(run).toMatchObject({ status: 0, stdout: `Installed ui-lib 1.4.0 (${LIB_GUID}) from ${registry('good')}: ${join(s, 'ui-lib-1.4.0.cap')}\n` });
    expect(sha256(join(s, 'ui-lib-1.4.0.cap'))).toBe(sha256(join(caps, 'ui-lib-1.4.0.cap')));
    expect(JSON.parse(readFileSync(join(s, 'index.json'), 'utf8'))).toEqual({ [LIB_GUID]: 'ui-lib-1.4.0.cap' });
    expect(runPkg(['install', LIB_GUID, '--constraint', '>=1.0.0, <1.4.0', '--registry', registry('good'), '--store', s], { env }).stdout).toMatch(/^Installed ui-lib 1\.0\.0 /);
    expect(runPkg(['install', LIB_GUID, '--constraint', '1.x', '--registry', registry('good'), '--store', s], { env }).stdout).toMatch(/^ui-lib 1\.4\.0 .* is already installed/);
    // The store index names the newest installed version, whatever order they came in.
    expect(JSON.parse(readFileSync(join(s, 'index.json'), 'utf8'))).toEqual({ [LIB_GUID]: 'ui-lib-1.4.0.cap' });
    expect(runPkg(['install', LIB_GUID, '--registry', registry('good'), '--store', s], { env }).stdout).toMatch(/^Installed ui-lib 2\.0\.0 /);
  });

  it('takes the registry and store from PKG_REGISTRY and PKG_STORE', () => {
    const s = store('from-env');
    expect(runPkg(['install', LIB_GUID, '--constraint', '~1.0'], { env: { ...env, PKG_REGISTRY: registry('good'), PKG_STORE: s } })).toMatchObject({ status: 0 });
    expect(capsIn(s)).toEqual(['ui-lib-1.0.0.cap']);
  });

  it('uses credentials in the URL for Basic auth and never prints them', async () => {
    const s = store('private');
    const withCredentials = `https://reader:${PASSWORD}@127.0.0.1:${nginx.port}/private/`;
    const run = runPkg(['install', LIB_GUID, '--constraint', '1.0.0', '--registry', withCredentials, '--store', s], { env });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`from https://***@127.0.0.1:${nginx.port}/private/`);
    const wrong = runPkg(['install', LIB_GUID, '--registry', `https://reader:wrong-${PASSWORD}@127.0.0.1:${nginx.port}/private/`, '--store', s], { env });
    expect(wrong).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: FetchError: cannot read https:\/\/\*\*\*@127\.0\.0\.1:\d+\/private\/index\.json: HTTP 401/) });
    const unknown = runPkg(['install', 'pkg://example.org/nothing', '--registry', withCredentials, '--store', s], { env });
    expect(unknown).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: PackageNotFoundError: /) });
    for (const output of [run, wrong, unknown]) expect(output.stdout + output.stderr).not.toContain(PASSWORD);
    const serving = await startServe([`pkg://example.org/site`, '--registry', withCredentials, '--store', store('private-serve')], { env });
    try {
      const config = await (await fetch(`${serving.url}/introspect/config`)).json();
      expect(config.registry).toBe(`https://***@127.0.0.1:${nginx.port}/private/`);
      expect(await (await fetch(`${serving.url}/lib.css`)).text()).toBe('v1.4 style\n');
    } finally {
      await serving.stop();
    }
    expect(serving.stdout() + serving.stderr()).not.toContain(PASSWORD);
  });

  it('keeps one store consistent when two installs of the same package run at once', async () => {
    const s = store('concurrent');
    const args = ['install', LIB_GUID, '--constraint', '^1', '--registry', registry('good'), '--store', s];
    const runs = await Promise.all([runPkgAsync(args, { env }), runPkgAsync(args, { env }), runPkgAsync(['install', SITE_GUID, '--registry', registry('good'), '--store', s], { env })]);
    for (const run of runs) expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(capsIn(s).sort()).toEqual(['site-1.0.0.cap', 'ui-lib-1.4.0.cap']);
    expect(sha256(join(s, 'ui-lib-1.4.0.cap'))).toBe(sha256(join(caps, 'ui-lib-1.4.0.cap')));
    expect(JSON.parse(readFileSync(join(s, 'index.json'), 'utf8'))).toEqual({ [LIB_GUID]: 'ui-lib-1.4.0.cap', [SITE_GUID]: 'site-1.0.0.cap' });
    expect(readdirSync(s).sort()).toEqual(['index.json', 'site-1.0.0.cap', 'ui-lib-1.4.0.cap']);
  });
});

describe('bad registries and faults, each a typed error with nothing written to the store', () => {
  const refused = (reference: string, error: string, message: RegExp, constraint = '^1') => {
    const s = store(`fault-${error}-${Math.random().toString(36).slice(2)}`);
    const run = runPkg(['install', LIB_GUID, '--constraint', constraint, '--registry', reference, '--store', s], { env });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^error: ${error}: `));
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(capsIn(s)).toEqual([]);
  };

  it('a malformed index.json', () => refused(registry('malformed'), 'InvalidRegistryError', /index\.json: invalid JSON/));
  it('an index.json of the wrong shape', () => refused(registry('wrong-shape'), 'InvalidRegistryError', /must be an object with a "packages" object keyed by GUID/));
  it('a version in the index that is not semver', () => refused(registry('not-semver'), 'InvalidRegistryError', /"latest" is not a semantic version/));
  it('a .cap whose bytes do not match the index sha256', () => refused(registry('tampered'), 'ChecksumMismatchError', /ui-lib-1\.4\.0\.cap: sha256 [0-9a-f]{64} where the registry index says f{64}; nothing was installed/));
  it('a .cap whose size does not match the index', () => refused(registry('wrong-size'), 'ChecksumMismatchError', /bytes where the registry index says \d+; nothing was installed/));
  it('a 404 for the .cap', () => refused(registry('missing-file'), 'FetchError', /cannot download .*gone\/ui-lib-1\.4\.0\.cap: HTTP 404/));
  it('a 404 for index.json', () => refused(registry('empty'), 'InvalidRegistryError', /has no index\.json \(404\)/));
  it('a 500 from the registry', () => refused(registry('broken'), 'FetchError', /HTTP 500/));
  it('a redirect to plain http', () => refused(registry('moved'), 'FetchError', /refused a redirect to http:\/\/example\.invalid/));
  it('plain http to a host that is not loopback', () => refused('http://example.invalid/registry/', 'InvalidRegistryError', /plain http is allowed only for loopback hosts/));
  it('no registry configured', () => refused('', 'RegistryNotConfiguredError', /use --registry or set PKG_REGISTRY/));
  it('a constraint nothing satisfies, listing what exists', () => refused(registry('good'), 'UnsatisfiableConstraintError', /satisfies >=3\.0\.0; available: 1\.0\.0, 1\.4\.0, 2\.0\.0/, '>=3.0.0'));

  it('a truncated download', async () => {
    const published = JSON.parse(readFileSync(join(www, 'good/index.json'), 'utf8'));
    const server: Server = createServer((request, response) => {
      if (request.url === '/index.json') return void response.end(JSON.stringify(published));
      const bytes = readFileSync(join(www, 'good', request.url!.slice(1)));
      response.writeHead(200, { 'Content-Length': bytes.length });
      response.write(bytes.subarray(0, bytes.length >> 1));
      setTimeout(() => response.socket?.destroy(), 50);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const s = store('truncated');
      // Plain http is fine on loopback.
      const run = await runPkgAsync(['install', LIB_GUID, '--registry', `http://127.0.0.1:${(server.address() as { port: number }).port}/`, '--store', s, '--constraint', '^1'], { env });
      expect(run).toMatchObject({ status: 1, stdout: '' });
      expect(run.stderr).toMatch(/^error: (FetchError: cannot download .*ui-lib-1\.4\.0\.cap|ChecksumMismatchError: .* bytes where the registry index says)/);
      expect(capsIn(s)).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('composite packages from the https registry', () => {
  it('serves pkg://<guid>: installed into the store with the newest matching dependency below its own layers', async () => {
    const s = store('serve');
    const serving = await startServe(['pkg://example.org/site', '--registry', registry('good'), '--store', s], { env });
    try {
      const get = async (path: string) => {
        const response = await fetch(`${serving.url}${path}`);
        return [response.status, await response.text()];
      };
      expect(serving.stdout()).toMatch(/\/ +site 1\.0\.0 +from pkg:\/\/example\.org\/site/);
      expect(await get('/lib.css')).toEqual([200, 'v1.4 style\n']);
      expect(await get('/style.css')).toEqual([200, 'v1.4 style\n']);
      expect(await get('/lib-only.txt')).toEqual([200, 'library file\n']);
      // The site's own layer lies above its dependency's.
      expect(await get('/shared.txt')).toEqual([200, 'from the site\n']);
      // 1.4.0 (newest ^1) was chosen, not 1.0.0 or 2.0.0.
      expect((await get('/old.txt'))[0]).toBe(404);
      expect((await get('/secret.txt'))[0]).toBe(404);
      expect((await fetch(`${serving.url}/shared.txt`, { method: 'PUT', body: 'written' })).status).toBe(200);
      expect(await get('/shared.txt')).toEqual([200, 'written']);
    } finally {
      await serving.stop();
    }
    expect(capsIn(s).sort()).toEqual(['site-1.0.0.cap', 'ui-lib-1.4.0.cap']);
    expect(JSON.parse(readFileSync(join(s, 'index.json'), 'utf8'))).toEqual({ [LIB_GUID]: 'ui-lib-1.4.0.cap', [SITE_GUID]: 'site-1.0.0.cap' });
  });

  it('installs a pkg:// source by --constraint', async () => {
    const serving = await startServe(['pkg://example.org/ui-lib', '--constraint', '~1.0.0', '--registry', registry('good'), '--store', store('constraint')], { env });
    try {
      expect(await (await fetch(`${serving.url}/style.css`)).text()).toBe('v1.0 style\n');
    } finally {
      await serving.stop();
    }
  });

  it('installs into <workdir>/store without a store, and takes pkg:// sources and per-mount stores from a mounts file', async () => {
    const workdir = join(work.path, 'serve-workdir');
    const mounts = join(work.path, 'mounts.json');
    writeFileSync(mounts, JSON.stringify({ mounts: [{ path: '/old-lib', source: 'pkg://example.org/ui-lib', store: './mount-store' }] }));
    const serving = await startServe(['pkg://example.org/site', '--config', mounts, '--constraint', '^1.0.0', '--registry', registry('good'), '--workdir', workdir], { env });
    try {
      expect(await (await fetch(`${serving.url}/lib.css`)).text()).toBe('v1.4 style\n');
      expect(await (await fetch(`${serving.url}/old-lib/style.css`)).text()).toBe('v1.4 style\n');
    } finally {
      await serving.stop();
    }
    expect(capsIn(join(workdir, 'store')).sort()).toEqual(['site-1.0.0.cap', 'ui-lib-1.4.0.cap']);
    expect(capsIn(join(work.path, 'mount-store'))).toEqual(['ui-lib-1.4.0.cap']);
  });

  it('refuses to serve a pkg:// source without a registry, with a typed error', () => {
    const run = runPkg(['reactor', 'serve', '--port', '0', 'pkg://example.org/site'], { env });
    expect(run).toMatchObject({ status: 1, stderr: expect.stringMatching(/^error: RegistryNotConfiguredError: no registry to install pkg:\/\/example\.org\/site from/m) });
  });

  it('prints the resolved tree with info, and bundles the dependency with pack --bundle', async () => {
    const s = store('bundle');
    const info = runPkg(['package', 'info', fixtures.site, '--registry', registry('good'), '--store', s], { env });
    expect(info.status).toBe(0);
    expect(info.stdout).toContain(`Dependencies:\n  ${LIB_GUID} ^1.0.0 -> 1.4.0 (registry: ${join(s, 'ui-lib-1.4.0.cap')})\n`);
    const out = join(work.path, 'bundled');
    const pack = runPkg(['package', 'pack', fixtures.site, '--bundle', '--registry', registry('good'), '--store', s, '-o', out], { env });
    expect(pack).toMatchObject({ status: 0, stdout: expect.stringContaining(`Bundled ${LIB_GUID} 1.4.0: packages/ui-lib-1.4.0.cap`) });
    const cap = join(out, 'site-1.0.0.cap');
    expect(runPkg(['package', 'validate', cap]).status).toBe(0);
    // No store and no registry: the bundle alone serves the site.
    const serving = await startServe([cap], { env });
    try {
      expect(await (await fetch(`${serving.url}/lib.css`)).text()).toBe('v1.4 style\n');
    } finally {
      await serving.stop();
    }
    expect(runPkg(['package', 'info', cap], { env }).stdout).toContain(`${LIB_GUID} ^1.0.0 -> 1.4.0 (bundle: packages/ui-lib-1.4.0.cap in ${cap})`);
  });
});
