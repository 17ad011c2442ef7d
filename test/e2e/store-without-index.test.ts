import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readZipEntries } from '../support/zip-entries.js';
import { ROOT, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { startServe } from '../support/serve-process.js';

const work = temporaryDirectory('cap-e2e-store-');
afterAll(() => work.remove());

const COMPOSITE = join(ROOT, 'examples/composite');
const THEME = join(ROOT, 'examples/theme');
const THEME_GUID = 'pkg://example.org/example-theme';
const store = join(work.path, 'store');

/** A store as a user makes one by hand: `pkg package pack` into a directory, no `pkg install`, so no index.json. */
beforeAll(() => {
  mkdirSync(store);
  expect(runPkg(['package', 'pack', THEME, '--output', store])).toMatchObject({ status: 0 });
  writeFileSync(join(store, 'broken-1.0.0.cap'), 'not a package');
  expect(readdirSync(store).sort()).toEqual(['broken-1.0.0.cap', 'example-theme-1.1.0.cap']);
});

describe('a store of .cap files without index.json', () => {
  it('resolves the dependencies `pkg package info` prints, and warns about the .cap it cannot read', () => {
    const run = runPkg(['package', 'info', COMPOSITE, '--store', store]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`  ${THEME_GUID} ^1.0.0 -> 1.1.0 (store: ${join(store, 'example-theme-1.1.0.cap')})`);
    expect(run.stdout).not.toContain('unresolved');
    expect(run.stderr).toMatch(/^warning: store .*: skipped broken-1\.0\.0\.cap: PackageFormatError: /m);
    const json = JSON.parse(runPkg(['package', 'info', COMPOSITE, '--store', store, '--json']).stdout);
    expect(json.resolved).toEqual([{ guid: THEME_GUID, range: '^1.0.0', version: '1.1.0', source: 'store', file: join(store, 'example-theme-1.1.0.cap'), dependencies: [] }]);
  });

  it('bundles from it with `pkg package pack --bundle --store`', () => {
    const output = join(work.path, 'bundled');
    const run = runPkg(['package', 'pack', COMPOSITE, '--bundle', '--store', store, '--output', output]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Bundled ${THEME_GUID} 1.1.0: packages/example-theme-1.1.0.cap`);
    const entries = readZipEntries(join(output, 'example-composite-1.0.0.cap'));
    expect(Object.keys(entries)).toContain('packages/example-theme-1.1.0.cap');
    expect(JSON.parse(entries['packages/index.json']!.toString())[THEME_GUID]).toMatchObject({ version: '1.1.0', file: 'packages/example-theme-1.1.0.cap' });
  });

  it('serves the composite with `pkg reactor serve --store`, the dependency\'s stylesheet included', async () => {
    const reactor = await startServe([COMPOSITE, '--store', store, '--workdir', join(work.path, 'workdir')]);
    try {
      const style = await fetch(`${reactor.url}/style.css`);
      expect(style.status).toBe(200);
      expect(await style.text()).toContain('h1 { color: #2a4d8f; }');
      expect((await fetch(`${reactor.url}/`)).status).toBe(200);
      expect(reactor.stderr()).toMatch(/warning: store .*: skipped broken-1\.0\.0\.cap/);
    } finally {
      await reactor.stop();
    }
    expect(readdirSync(store).sort()).toEqual(['broken-1.0.0.cap', 'example-theme-1.1.0.cap']);
  });
});
