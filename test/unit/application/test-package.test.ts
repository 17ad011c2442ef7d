import { describe, expect, it } from '@jest/globals';
import { AjvSchemaValidator } from '../../../src/adapters/schema/ajv-schema-validator.js';
import { doublingSchema } from '../../support/doubling-schema.js';
import type { ReactorHost } from '../../../src/application/ports/reactor-host.js';
import { TestPackage } from '../../../src/application/use-cases/test-package.js';
import { PackageFormatError } from '../../../src/domain/errors.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { ScriptedHttpProbe, type ScriptedPage } from '../../fakes/scripted-http-probe.js';
import { demoPackage } from '../../support/demo-package.js';

/** A host that records starts and stops, and a probe that answers from a table at the host's URL. */
function fakes(pages: Record<string, ScriptedPage>) {
  let starts = 0;
  let stops = 0;
  // A recording stub: TestPackage only needs a URL to probe and a stop to call.
  const host: ReactorHost = {
    start: async () => {
      starts++;
      return { url: 'http://reactor', port: 1, workdir: '/w', temporaryWorkdir: true, mounts: [], failures: [], warnings: [], stop: async () => void stops++ };
    },
  };
  const probe = new ScriptedHttpProbe('http://reactor', pages);
  return { host, probe, requested: probe.requested, counts: () => ({ starts, stops }) };
}

const suite = (yaml: string) => demoPackage({ 'tests/a.yaml': yaml, 'data/x.json': '[{"n":1},{"n":"two"}]', 'data/x.schema.json': '{"type":"object","properties":{"n":{"type":"integer"}}}' });

describe('TestPackage', () => {
  it('runs every test type and reports PASS and FAIL with messages', async () => {
    const { host, probe, requested, counts } = fakes({ '/': { status: 200, body: '<title>Demo</title>', type: 'text/html; charset=utf-8' }, '/a?x=1': { status: 200, body: 'x' } });
    const yaml = `tests:
  - {name: home, type: route, url: /, expected_status: 200, response_contains: Demo, expected_content_type: text/html}
  - {name: absolute url, type: route, url: "https://example.org/a?x=1", expected_status: 200}
  - {name: wrong status, type: route, url: /missing, expected_status: 200, response_contains: hello}
  - {name: css exists, type: file, path: content/style.css, contains: color}
  - {name: missing file, type: file, path: content/nope.css}
  - {name: rows, type: data_validation, format: json, data_file: data/x.json, schema_file: data/x.schema.json}
  - {name: metadata, type: config, format: json, config_file: metadata.json}
  - {name: bad config, type: config, format: json, config_file: content/style.css}
`;
    const report = await new TestPackage(new MemoryOpener().add('p', suite(yaml)), host, probe, new AjvSchemaValidator()).execute('p');
    expect(report.results.map((r) => [r.name, r.passed])).toEqual([
      ['home', true],
      ['absolute url', true],
      ['wrong status', false],
      ['css exists', true],
      ['missing file', false],
      ['rows', false],
      ['metadata', true],
      ['bad config', false],
    ]);
    expect(report.results[2]!.messages).toEqual(['GET /missing: expected status 200, got 404', 'GET /missing: response does not contain "hello"']);
    expect(report.results[5]!.messages).toEqual(['data/x.json row 2/n must be integer']);
    expect(report.results[7]!.messages[0]).toMatch(/^content\/style\.css:1:1: invalid JSON/);
    expect(requested).toEqual(['http://reactor/', 'http://reactor/a?x=1', 'http://reactor/missing']);
    expect(counts()).toEqual({ starts: 1, stops: 1 });
    expect(report).toMatchObject({ passed: 4, failed: 4 });
  });

  it('reads package paths written rooted (/metadata.json) as the same package paths', async () => {
    const { host, probe } = fakes({});
    const yaml = `tests:
  - {name: rooted file, type: file, path: /content/style.css, contains: color}
  - {name: rooted config, type: config, format: json, config_file: /metadata.json}
  - {name: rooted data, type: data_validation, format: json, data_file: /data/x.json, schema_file: /data/x.schema.json}
  - {name: rooted missing, type: file, path: /content/nope.css}
`;
    const report = await new TestPackage(new MemoryOpener().add('p', suite(yaml)), host, probe, new AjvSchemaValidator()).execute('p');
    expect(report.results.map((r) => [r.name, r.passed])).toEqual([['rooted file', true], ['rooted config', true], ['rooted data', false], ['rooted missing', false]]);
    expect(report.results[2]!.messages).toEqual(['data/x.json row 2/n must be integer']);
    expect(report.results[3]!.messages).toEqual(['content/nope.css does not exist in the package']);
  });

  it('fails, at once, a data_validation test whose schema multiplies its checks of one row past the limit', async () => {
    const { host, probe } = fakes({});
    const files = suite('tests:\n  - {name: rows, type: data_validation, format: json, data_file: data/x.json, schema_file: data/x.schema.json}\n');
    files['data/x.schema.json'] = JSON.stringify(doublingSchema(24));
    const report = await new TestPackage(new MemoryOpener().add('p', files), host, probe, new AjvSchemaValidator()).execute('p');
    expect(report.results[0]!.passed).toBe(false);
    expect(report.results[0]!.messages).toEqual([expect.stringMatching(/data\/x\.schema\.json: checking one value may take more than 10,000 subschema checks/)]);
  });

  it('validates known configs against their canonical models', async () => {
    const { host, probe } = fakes({});
    const files = suite('tests:\n  - {name: routes, type: config, format: json, config_file: routes.json}\n');
    files['routes.json'] = JSON.stringify({ routes: [{ path: 'no-slash', resource: 'content/a' }] });
    const report = await new TestPackage(new MemoryOpener().add('p', files), host, probe, new AjvSchemaValidator()).execute('p');
    expect(report.results[0]!.messages[0]).toMatch(/routes\.json: .*starting with "\/"/);
  });

  it('reports invalid definitions and unparsable files as failures, and starts no reactor without route tests', async () => {
    const { host, probe, counts } = fakes({});
    const files = suite('tests:\n  - {name: no type}\n  - {type: route, url: /, expected_status: 999}\n  - {name: f, type: file, path: content/style.css}\n');
    files['tests/broken.yml'] = 'tests: [\n';
    const report = await new TestPackage(new MemoryOpener().add('p', files), host, probe, new AjvSchemaValidator()).execute('p');
    expect(report.results.map((r) => r.passed)).toEqual([false, false, true, false]);
    expect(report.results[0]!.messages).toEqual(['invalid definition: tests/a.yaml tests[0]: "type" must be route, file, data_validation or config (got undefined)']);
    expect(report.results[1]!.messages).toEqual(['invalid definition: tests/a.yaml tests[1]: "name" is required', 'invalid definition: tests/a.yaml tests[1]: "expected_status" must be an HTTP status code']);
    expect(report.results[3]!.messages[0]).toMatch(/^invalid definition: tests\/broken\.yml:\d+:\d+: invalid YAML/);
    expect(counts().starts).toBe(0);
  });

  it('refuses what is not a package (no metadata.json at its root), as info does, instead of passing it with no tests', async () => {
    const { host, probe } = fakes({});
    const wrapped = Object.fromEntries(Object.entries(demoPackage({})).map(([path, bytes]) => [`site/${path}`, bytes]));
    await expect(new TestPackage(new MemoryOpener().add('p', wrapped), host, probe, new AjvSchemaValidator()).execute('p')).rejects.toThrow(new PackageFormatError("p has no metadata.json (site/metadata.json is one folder down: a package's files sit at its top, as pkg package pack writes them, not inside a folder as zipping the folder puts them)"));
  });
});
