import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { curlGet, HAS_CURL } from '../support/curl.js';
import { writeRawZip } from '../support/hostile-zip.js';
import { EXAMPLE_SITE, ROOT, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { failingServe, startServe } from '../support/serve-process.js';

const work = temporaryDirectory('cap-serve-');
let cap: string;
beforeAll(() => {
  expect(runPkg(['package', 'pack', EXAMPLE_SITE, '-o', work.path]).status).toBe(0);
  cap = join(work.path, 'example-site-1.0.0.cap');
});
afterAll(() => work.remove());

describe('pkg reactor serve', () => {
  it('serves a .cap in place and a directory side by side, then exits 0 on SIGTERM and removes its temporary workdir', async () => {
    const running = await startServe([cap, EXAMPLE_SITE]);
    try {
      const home = await fetch(`${running.url}/`);
      expect(home.status).toBe(200);
      expect(await home.text()).toContain('Example site');
      expect((await fetch(`${running.url}/example-site/css/style.css`)).status).toBe(200);
      const articles = await fetch(`${running.url}/api/v1/data/articles`);
      expect(((await articles.json()) as unknown[]).length).toBe(3);
      expect(((await (await fetch(`${running.url}/introspect/status`)).json()) as { packagesLoaded: number }).packagesLoaded).toBe(2);
    } finally {
      expect(await running.stop('SIGTERM')).toBe(0);
    }
    expect(running.stdout()).toMatch(/^ {2}\/ +example-site 1\.0\.0 +from .*example-site-1\.0\.0\.cap/m);
    expect(running.stdout()).toMatch(/^ {2}\/example-site\/ +example-site 1\.0\.0/m);
    expect(running.stdout()).toMatch(/^\S+Z GET \/ -> 200$/m);
    const workdir = /Workdir: (\S+) \(temporary\)/.exec(running.stdout())![1]!;
    expect(existsSync(workdir)).toBe(false);
  });

  it('exits 0 on SIGINT too', async () => {
    const running = await startServe([EXAMPLE_SITE]);
    expect(await running.stop('SIGINT')).toBe(0);
  });

  it('combines positional sources, --mount and --config', async () => {
    const config = join(work.path, 'mounts.json');
    writeFileSync(config, JSON.stringify({ mounts: [{ path: '/from-config', source: 'example-site-1.0.0.cap' }] }));
    const running = await startServe([EXAMPLE_SITE, '--mount', `/mounted=${cap}`, '--config', config]);
    try {
      for (const path of ['/', '/mounted/', '/from-config/about']) expect((await fetch(running.url + path)).status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('prints each mount as a URL a terminal can open: its path percent-encoded, not with a raw space or letter beyond ASCII', async () => {
    const running = await startServe([EXAMPLE_SITE, '--mount', `/m\u00e9 nu+1=${cap}`]);
    try {
      const printed = `${running.url}/m%C3%A9%20nu%2B1/`;
      expect(running.stdout()).toContain(`  ${printed}\n`);
      expect((await fetch(printed)).status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('stops with MountConflictError when two mounts claim one prefix', async () => {
    const result = await failingServe([EXAMPLE_SITE, '--mount', `/=${cap}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: MountConflictError: two mounts claim the prefix \/: /m);
  });

  it('reports a malformed mounts file with its path', async () => {
    const config = join(work.path, 'bad-mounts.json');
    writeFileSync(config, '{"mounts": [');
    const result = await failingServe(['--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error: ConfigParseError: ${config}:1:13: invalid JSON: unexpected end of input\n`);
  });

  it('never serves a tampered .cap and says which mount failed', async () => {
    const tampered = join(work.path, 'tampered.cap');
    const security = JSON.stringify({ security: { integrityChecks: { checksums: { 'metadata.json': '0'.repeat(64) } } } });
    writeRawZip(tampered, [['metadata.json', JSON.stringify({ name: 'evil', version: '1.0.0', description: 'x', guid: 'pkg://x', uuid: '00000000-0000-0000-0000-000000000000' })], ['security.json', security]]);
    const result = await failingServe([tampered]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: IntegrityError: .*tampered\.cap failed its integrity check: checksum mismatch: metadata\.json\n$/);
    const mixed = await startServe([EXAMPLE_SITE, tampered]);
    try {
      expect(mixed.stderr()).toMatch(/warning: not mounted: .*tampered\.cap: IntegrityError/);
      expect((await fetch(`${mixed.url}/evil/`)).status).toBe(404);
    } finally {
      await mixed.stop();
    }
  });

  it('gives a one-line error and exit 1 when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = runPkg(['reactor', 'serve', EXAMPLE_SITE, '--port', String(port)]);
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(`error: ListenError: port ${port} on 127.0.0.1 is in use\n`);
    } finally {
      blocker.close();
    }
  });

  it('refuses a huge header cleanly', async () => {
    const running = await startServe([EXAMPLE_SITE]);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${running.url}/`, { headers: { 'X-Big': 'a'.repeat(64 * 1024) } }, (res) => resolve(res.statusCode!));
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(431);
      expect((await fetch(`${running.url}/`)).status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('explains a missing source', async () => {
    mkdirSync(join(work.path, 'empty'), { recursive: true });
    const result = await failingServe([join(work.path, 'nowhere')]);
    expect(result.stderr).toMatch(/^error: SourceNotFoundError: /);
    expect(runPkg(['reactor', 'serve']).stderr).toMatch(/error: UsageError: nothing to serve/);
  });

  it('refuses at start a --cache-control no HTTP answer can carry (each static answer was a 500)', () => {
    for (const value of ['public\nX-Injected: 1', 'caf\u20ac']) {
      const result = runPkg(['reactor', 'serve', EXAMPLE_SITE, '--cache-control', value]);
      expect([result.status, result.stderr]).toEqual([2, expect.stringMatching(/^error: UsageError: --cache-control must be text an HTTP header can carry/)]);
    }
  });

  it('refuses an empty --port or $PORT (read as 0, a random port) and an empty --host (every interface)', () => {
    for (const [args, env] of [[['--port', ''], {}], [['--port', 'abc'], {}], [[], { PORT: ' ' }]] as const) {
      const result = runPkg(['reactor', 'serve', EXAMPLE_SITE, ...args], { env });
      expect([result.status, result.stderr]).toEqual([2, expect.stringMatching(/^error: UsageError: --port \(or \$PORT\) must be a whole number from 0 to 65535/)]);
    }
    expect(runPkg(['reactor', 'serve', EXAMPLE_SITE, '--host', ''])).toMatchObject({ status: 2, stderr: expect.stringMatching(/^error: UsageError: --host is empty/) });
  });
});

describe('gzip from the archive, as curl sees it', () => {
  // Brotli, which curl --compressed also asks for once the archive's copy is ready: compressed-answers.test.ts.
  (HAS_CURL ? it : it.skip)('curl --compressed asking for gzip gets the gzip answer and decodes it to the file; plain curl gets the file as is', async () => {
    const site = join(work.path, 'gzip-site');
    mkdirSync(join(site, 'content'), { recursive: true });
    writeFileSync(join(site, 'metadata.json'), JSON.stringify({ name: 'gzip-site', version: '1.0.0', description: 'gzip', guid: 'pkg://example.org/gzip-site', uuid: '123e4567-e89b-42d3-a456-426614174001' }));
    const css = Array.from({ length: 300 }, (_, i) => `.item-${i} { margin: ${i % 9}px; color: #${(i * 99991).toString(16).slice(-6).padStart(6, '0')}; }\n`).join('');
    writeFileSync(join(site, 'content/style.css'), css);
    expect(runPkg(['package', 'pack', site, '-o', join(work.path, 'gzip-out')]).status).toBe(0);
    const running = await startServe([join(work.path, 'gzip-out/gzip-site-1.0.0.cap')]);
    try {
      const fetchWithCurl = (...flags: string[]) => {
        const answer = curlGet(`${running.url}/style.css`, ...flags);
        expect(answer.status).toBe(0);
        return answer;
      };
      const compressed = fetchWithCurl('--compressed', '-H', 'Accept-Encoding: gzip');
      expect(compressed.headers).toContain('content-encoding: gzip');
      expect(compressed.headers).toContain('vary: accept-encoding');
      expect(Number(/content-length: (\d+)/.exec(compressed.headers)![1])).toBeLessThan(css.length / 2);
      expect(compressed.body.toString()).toBe(css);
      const plain = fetchWithCurl();
      expect(plain.headers).not.toContain('content-encoding');
      expect(plain.body.toString()).toBe(css);
    } finally {
      await running.stop();
    }
  });
});

describe('pkg package test', () => {
  it('runs the example package tests against an in-process reactor', () => {
    const run = runPkg(['package', 'test', cap]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^PASS home page answers \(route, tests\/site\.yaml\)$/m);
    expect(run.stdout).toMatch(/^6 passed, 0 failed$/m);
    expect(JSON.parse(runPkg(['package', 'test', EXAMPLE_SITE, '--json']).stdout)).toMatchObject({ passed: 6, failed: 0 });
  });

  it('serves a composite package to its route tests with the dependencies of --store', () => {
    const dir = join(work.path, 'composite-tested');
    cpSync(join(ROOT, 'examples/composite'), dir, { recursive: true });
    mkdirSync(join(dir, 'tests'), { recursive: true });
    writeFileSync(join(dir, 'tests/theme.yaml'), 'tests:\n  - {name: theme from the dependency, type: route, url: /style.css, expected_status: 200, expected_content_type: text/css}\n');
    const store = join(work.path, 'composite-store');
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/theme'), '-o', store]).status).toBe(0);
    const run = runPkg(['package', 'test', dir, '--store', store]);
    expect(run.stdout).toMatch(/^PASS theme from the dependency \(route, tests\/theme\.yaml\)$/m);
    expect(run.status).toBe(0);
    // Without a store the dependency cannot be resolved, and the route test says why.
    const without = runPkg(['package', 'test', dir], { env: { PKG_STORE: '', PKG_REGISTRY: '' } });
    expect(without.status).toBe(1);
    expect(without.stdout).toMatch(/FAIL theme from the dependency \(route, tests\/theme\.yaml\)\n {2}- the package could not be served: RegistryNotConfiguredError: /);
  });

  it('exits 1 when a test fails or a definition is invalid', () => {
    const dir = join(work.path, 'failing');
    mkdirSync(join(dir, 'tests'), { recursive: true });
    mkdirSync(join(dir, 'content'), { recursive: true });
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ name: 'failing', version: '1.0.0', description: 'x', guid: 'pkg://x/failing', uuid: '00000000-0000-0000-0000-000000000000' }));
    writeFileSync(join(dir, 'content/index.html'), '<p>hi</p>');
    writeFileSync(join(dir, 'tests/t.yaml'), 'tests:\n  - {name: gone, type: route, url: /gone, expected_status: 200}\n  - {name: typo, type: rout}\n');
    const run = runPkg(['package', 'test', dir]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/FAIL gone \(route, tests\/t\.yaml\)\n {2}- GET \/gone: expected status 200, got 404/);
    expect(run.stdout).toMatch(/FAIL typo \(invalid, tests\/t\.yaml\)\n {2}- invalid definition: /);
    expect(run.stdout).toMatch(/^0 passed, 2 failed$/m);
  });
});

describe('content validity in the built reactor (worker thread)', () => {
  it('re-verifies on request and reports a file changed after load', async () => {
    const dir = join(work.path, 'unpacked-for-validity');
    expect(runPkg(['package', 'unpack', cap, '-o', dir]).status).toBe(0);
    const running = await startServe([dir, cap]);
    try {
      const validity = async () => ((await (await fetch(`${running.url}/api/v1/introspect/content-validity`)).json()) as { contentValidity: Array<{ valid: boolean; reason?: string[] }> }).contentValidity;
      expect((await validity()).map((v) => v.valid)).toEqual([true, true]);
      writeFileSync(join(dir, 'content/about.html'), '<p>changed</p>');
      const [changed, archived] = await validity();
      expect(changed).toMatchObject({ valid: false, reason: ['checksum mismatch: content/about.html'] });
      expect(archived!.valid).toBe(true);
    } finally {
      await running.stop();
    }
  });
});
