import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { cpSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePackage } from '../support/composite-fixtures.js';
import { ROOT, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { startServe } from '../support/serve-process.js';
import { readZipEntries } from '../support/zip-entries.js';

jest.setTimeout(120_000);

const FIXTURES = join(ROOT, 'test/fixtures');
const fixture = (name: string) => join(FIXTURES, name);
const work = temporaryDirectory('cap-real-');
const at = (name: string) => join(work.path, name);
afterAll(() => work.remove());

/** Every file of a directory with its bytes: what "the source is never touched" compares. */
const snapshot = (directory: string) =>
  Object.fromEntries(readdirSync(directory, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => [join(entry.parentPath, entry.name), readFileSync(join(entry.parentPath, entry.name)).toString('base64') + statSync(join(entry.parentPath, entry.name)).mtimeMs]));

describe('packages in the forms other implementations write', () => {
  it('legacy configuration forms validate and serve, and pack writes every configuration file in its canonical form, source untouched', async () => {
    const before = snapshot(fixture('legacy-forms'));
    expect(runPkg(['package', 'validate', fixture('legacy-forms')]).status).toBe(0);
    expect(runPkg(['package', 'test', fixture('legacy-forms')]).stdout).toMatch(/4 passed, 0 failed/);
    expect(runPkg(['package', 'pack', fixture('legacy-forms'), '-o', work.path]).status).toBe(0);
    expect(snapshot(fixture('legacy-forms'))).toEqual(before);
    const cap = at('legacy-forms-1.0.0.cap');
    const entries = readZipEntries(cap);
    const json = (path: string) => JSON.parse(entries[path]!.toString()) as Record<string, unknown>;
    expect(json('manifest.json')).toEqual({ 'content/birds.html': { type: 'text/html', visibility: 'exported' }, 'content/index.html': { type: 'text/html', visibility: 'exported' } });
    expect(json('routes.json')).toEqual({ routes: [{ path: '/', resource: 'content/index.html' }, { path: '/birds', resource: 'content/birds.html' }, { path: '/api/v1/data/birds', dataset: 'birds' }] });
    expect(json('storage.json')).toEqual({ storage: { dataSets: { birds: { source: 'data/birds.json', schemaFile: 'data/birds-schema.json', schemaType: 'json-schema' } } } });
    expect(json('metadata.json').dependencies).toEqual({});
    expect(runPkg(['package', 'validate', cap]).status).toBe(0);
    // Saved from a reactor, the package is canonical too, and validates.
    const running = await startServe([cap, '--workdir', at('legacy-work')]);
    try {
      expect((await fetch(`${running.url}/birds`)).status).toBe(200);
      expect((await fetch(`${running.url}/api/v1/data/birds`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"id":"robin","name":"Robin","wingspan_cm":22}' })).status).toBe(201);
      const saved = (await (await fetch(`${running.url}/package/legacy-forms/save`, { method: 'POST' })).json()) as { path: string };
      expect(runPkg(['package', 'validate', saved.path]).status).toBe(0);
      expect(JSON.parse(readZipEntries(saved.path)['data/birds.json']!.toString()).map((bird: { id: string }) => bird.id)).toEqual(['wren', 'heron', 'robin']);
    } finally {
      await running.stop();
    }
  });

  it('old 0.1.x metadata without guid and uuid: read with a warning, validate fails saying what to add, pack refuses the same way, serve serves with a warning', async () => {
    const old = fixture('old-0.1-package');
    for (const item of ['info', 'manifest', 'routes', 'metadata']) {
      const run = runPkg(['package', item, old]);
      expect({ item, status: run.status }).toEqual({ item, status: 0 });
      expect(run.stderr).toMatch(/^warning: metadata\.json: "guid" is missing \(0\.1\.x metadata had none\): add "guid": "pkg:\/\/<your domain>\/old-garden"/);
    }
    const validated = runPkg(['package', 'validate', old]);
    expect(validated.status).toBe(1);
    expect(validated.stdout).toMatch(/FAIL metadata\n {2}- "guid" is missing .*add "guid"[^\n]*\n {2}- "uuid" is missing .*add "uuid"/);
    expect(validated.stdout).toMatch(/PASS routes/);
    expect(validated.stdout).toMatch(/PASS storage/);
    const packed = runPkg(['package', 'pack', old, '-o', work.path]);
    expect(packed.status).toBe(1);
    expect(packed.stderr).toMatch(/^error: ConfigValidationError: metadata\.json: "guid" is missing .*add "guid".*"uuid" is missing/);
    expect(runPkg(['package', 'test', old]).stdout).toMatch(/3 passed, 0 failed/);
    const running = await startServe([old]);
    try {
      expect(running.stderr()).toMatch(/warning: .*old-0\.1-package: metadata\.json: "guid" is missing/);
      expect(await (await fetch(`${running.url}/plants`)).text()).toContain('Fern');
      expect(((await (await fetch(`${running.url}/api/v1/data/plants`)).json()) as unknown[]).length).toBe(2);
    } finally {
      await running.stop();
    }
  });

  it('a handler route is loaded, listed in introspection, answered 501, and validate warns without failing', async () => {
    const validated = runPkg(['package', 'validate', fixture('handler-routes')]);
    expect(validated.status).toBe(0);
    expect(validated.stdout).toMatch(/! route POST \/api\/v1\/handler\/score runs handler handlers\/score\.js, which this toolkit does not run/);
    expect(runPkg(['package', 'info', fixture('handler-routes')]).status).toBe(0);
    expect(runPkg(['package', 'pack', fixture('handler-routes'), '-o', work.path]).status).toBe(0);
    const running = await startServe([at('scoreboard-1.0.0.cap')]);
    try {
      const answer = await fetch(`${running.url}/api/v1/handler/score`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"hits":3}' });
      expect(answer.status).toBe(501);
      expect(((await answer.json()) as { error: { code: string; message: string } }).error).toEqual({ code: 'HANDLER_NOT_SUPPORTED', message: expect.stringMatching(/POST \/api\/v1\/handler\/score runs handler handlers\/score\.js/) });
      const routes = ((await (await fetch(`${running.url}/api/v1/introspect/routes`)).json()) as { routes: Array<{ routes: Array<Record<string, unknown>> }> }).routes[0]!.routes;
      expect(routes).toContainEqual({ method: 'POST', path: '/api/v1/handler/score', handler: 'handlers/score.js', served: false });
      expect((await fetch(`${running.url}/`)).status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('test definitions with rooted package paths (/metadata.json) pass', () => {
    const copy = at('rooted');
    cpSync(fixture('legacy-forms'), copy, { recursive: true });
    const run = runPkg(['package', 'test', copy, '--json']);
    const report = JSON.parse(run.stdout) as { results: Array<{ name: string; passed: boolean }> };
    expect(report.results.filter((result) => result.name.includes('rooted'))).toEqual([expect.objectContaining({ passed: true })]);
  });
});

describe('datasets in the forms other implementations write', () => {
  const graphql = (url: string, query: string) => fetch(`${url}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query }) }).then((r) => r.json() as Promise<{ data?: Record<string, unknown>; errors?: unknown[] }>);

  it('a schema of the whole collection: validate passes, writes are checked against its items, GraphQL types them, and a saved package validates', async () => {
    expect(runPkg(['package', 'validate', fixture('collection-schema')]).stdout).toMatch(/PASS storage {2}\(dataset notes: 2 items valid against data\/notes\.schema\.json\)/);
    const running = await startServe([fixture('collection-schema'), '--workdir', at('collection-work')]);
    try {
      const post = (body: unknown) => fetch(`${running.url}/api/v1/data/notes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post({ id: 'n3', title: 'Dusk', minutes: 10 })).status).toBe(201);
      expect((await post({ id: 'n4', title: '' })).status).toBe(422);
      const typed = await graphql(running.url, '{ notes { id title minutes weather { wind temperature } } }');
      expect(typed.errors).toBeUndefined();
      expect(typed.data!.notes).toEqual([
        { id: 'n1', title: 'Dawn chorus', minutes: 40, weather: { wind: 'calm', temperature: 9.5 } },
        { id: 'n2', title: 'Low tide', minutes: 25, weather: { wind: 'breezy', temperature: 12 } },
        { id: 'n3', title: 'Dusk', minutes: 10, weather: null },
      ]);
      const saved = (await (await fetch(`${running.url}/package/field-notes/save`, { method: 'POST' })).json()) as { path: string };
      expect(runPkg(['package', 'validate', saved.path]).status).toBe(0);
    } finally {
      await running.stop();
    }
  });

  it('a dataset that is one document of lists answers GraphQL, typed from its schema', async () => {
    expect(runPkg(['package', 'validate', fixture('document-dataset')]).status).toBe(0);
    const running = await startServe([fixture('document-dataset')]);
    try {
      const answer = await graphql(running.url, '{ orchard { varieties { id name } trees { planted row { number sunny } } } }');
      expect(answer).toEqual({ data: { orchard: { varieties: [{ id: 1, name: 'Bramley' }, { id: 2, name: 'Cox' }], trees: [{ planted: 2019, row: { number: 3, sunny: true } }, { planted: 2021, row: { number: 4, sunny: false } }] } } });
      const introspected = (await graphql(running.url, '{ __type(name: "OrchardDocumentVarieties") { fields { name type { name } } } }')) as { data: { __type: { fields: Array<{ name: string; type: { name: string } }> } } };
      expect(introspected.data.__type.fields).toContainEqual({ name: 'id', type: { name: 'Int' } });
    } finally {
      await running.stop();
    }
  });
});

describe('validate sees what the reactor serves', () => {
  it('resources in declared layers pass the manifest and routes checks, and a saved layered package validates', async () => {
    const validated = runPkg(['package', 'validate', fixture('layered')]);
    expect(validated.stdout).toMatch(/PASS manifest {2}\(5 resources\)/);
    expect(validated.stdout).toMatch(/PASS routes {2}\(4 routes\)/);
    expect(validated.status).toBe(0);
    const running = await startServe([fixture('layered'), '--workdir', at('layered-work')]);
    try {
      expect(await (await fetch(`${running.url}/chapter-1`)).text()).toContain('From the base layer.');
      expect(await (await fetch(`${running.url}/chapter-2`)).text()).toContain('From the update layer.');
      expect(await (await fetch(`${running.url}/style.css`)).text()).toContain('sans-serif');
      expect((await fetch(`${running.url}/draft.html`)).status).toBe(404);
      // Deleting files through the reactor tombstones them in the saved package: it still validates, with a warning each.
      expect((await fetch(`${running.url}/chapter-1`, { method: 'DELETE' })).status).toBe(204);
      expect((await fetch(`${running.url}/style.css`, { method: 'DELETE' })).status).toBe(204);
      const saved = (await (await fetch(`${running.url}/package/layered-notebook/save`, { method: 'POST' })).json()) as { path: string };
      const revalidated = runPkg(['package', 'validate', saved.path]);
      expect(revalidated.status).toBe(0);
      expect(revalidated.stdout).toMatch(/! content\/chapter-1\.html is deleted by a layer's tombstone: it answers 404/);
    } finally {
      await running.stop();
    }
  });

  it('a composite package: without a store or registry the dependency resources are named as unchecked; with one they are resolved and checked', () => {
    const composite = join(ROOT, 'examples/composite');
    const alone = runPkg(['package', 'validate', composite]);
    expect(alone.status).toBe(0);
    expect(alone.stdout).toMatch(/! 1 resource could not be checked, as it may come from dependencies \(give --store or --registry to resolve them\): pkg:\/\/example\.org\/example-theme\/content\/theme\.css/);
    const registry = at('registry');
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/theme'), '-o', work.path]).status).toBe(0);
    expect(runPkg(['package', 'push', at('example-theme-1.1.0.cap'), '--registry', registry]).status).toBe(0);
    const resolved = runPkg(['package', 'validate', composite, '--registry', registry, '--store', at('store')]);
    expect(resolved.status).toBe(0);
    expect(resolved.stdout).not.toMatch(/could not be checked/);
    // A route to a file the dependency does not hold, or holds but keeps private, fails once the dependency is known, said as the reactor says it.
    const broken = at('broken-composite');
    cpSync(composite, broken, { recursive: true });
    const routes = JSON.parse(readFileSync(join(broken, 'routes.json'), 'utf8')) as { routes: Array<Record<string, string>> };
    routes.routes.push({ path: '/missing.css', resource: 'pkg://example.org/example-theme/content/missing.css' }, { path: '/notes.txt', resource: 'pkg://example.org/example-theme/content/notes.txt' });
    writeFileSync(join(broken, 'routes.json'), JSON.stringify(routes));
    const failed = runPkg(['package', 'validate', broken, '--registry', registry, '--store', at('store')]);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toMatch(/FAIL routes\n {2}- route \/missing\.css: resource pkg:\/\/example\.org\/example-theme\/content\/missing\.css does not exist in example-theme 1\.1\.0 \(/);
    expect(failed.stdout).toMatch(/\n {2}- route \/notes\.txt: resource pkg:\/\/example\.org\/example-theme\/content\/notes\.txt is private to example-theme 1\.1\.0; a dependent can use only its exported resources\n/);
  });

  it('a dependency that cannot be resolved fails the routes check of a directory whose routes.json is generated, as it does the packed .cap', () => {
    const store = at('empty-store');
    mkdirSync(store);
    const orphan = writePackage(at('orphan'), { name: 'orphan', version: '1.0.0', guid: 'pkg://example.org/orphan', dependencies: { 'pkg://example.org/nowhere': '^1.0.0' } }, { 'content/index.html': '<h1>orphan</h1>\n' });
    expect(runPkg(['package', 'pack', orphan, '-o', work.path]).status).toBe(0);
    for (const source of [orphan, at('orphan-1.0.0.cap')]) {
      const run = runPkg(['package', 'validate', source, '--store', store]);
      expect(run.stdout).toMatch(/FAIL routes\n {2}- dependencies could not be resolved: dependency pkg:\/\/example\.org\/orphan -> pkg:\/\/example\.org\/nowhere/);
      expect(run.status).toBe(1);
    }
  });
});

describe('a store that is only .cap files (no index.json)', () => {
  it('resolves a composite package\'s dependency for info, pack --bundle, validate and serve', async () => {
    const store = at('plain-store');
    expect(runPkg(['package', 'pack', join(ROOT, 'examples/theme'), '-o', store]).status).toBe(0);
    expect(readdirSync(store)).toEqual(['example-theme-1.1.0.cap']);
    const composite = join(ROOT, 'examples/composite');
    const info = runPkg(['package', 'info', composite, '--store', store]);
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(/pkg:\/\/example\.org\/example-theme \^1\.0\.0 -> 1\.1\.0/);
    expect(runPkg(['package', 'validate', composite, '--store', store]).stdout).not.toMatch(/could not be checked/);
    const bundled = runPkg(['package', 'pack', composite, '--bundle', '--store', store, '-o', at('bundled')]);
    expect(bundled.status).toBe(0);
    expect(bundled.stdout).toMatch(/Bundled pkg:\/\/example\.org\/example-theme 1\.1\.0/);
    const running = await startServe([composite, '--store', store]);
    try {
      expect((await fetch(`${running.url}/style.css`)).status).toBe(200);
    } finally {
      await running.stop();
    }
    expect(readdirSync(store)).toEqual(['example-theme-1.1.0.cap']);
  });
});

describe('the content check', () => {
  it('passes a vendored library that only mentions URLs, and fails a page that loads one, with file:line', () => {
    const vendored = runPkg(['package', 'validate', fixture('vendored-library')]);
    expect(vendored.stdout).toMatch(/PASS content/);
    expect(vendored.status).toBe(0);
    const loading = at('loading');
    cpSync(fixture('vendored-library'), loading, { recursive: true });
    const page = readFileSync(join(loading, 'content/index.html'), 'utf8').replace('<script src="/js/tinymark.min.js"></script>', '<script src="https://cdn.example.org/tinymark.min.js"></script>');
    writeFileSync(join(loading, 'content/index.html'), page);
    const failed = runPkg(['package', 'validate', loading]);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toMatch(/FAIL content\n {2}- content\/index\.html:13: external reference https:\/\/cdn\.example\.org\/tinymark\.min\.js\n/);
  });
});
