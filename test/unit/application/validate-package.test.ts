import { describe, expect, it } from '@jest/globals';
import { NodeHasher } from '../../../src/adapters/crypto/node-hasher.js';
import { AjvSchemaValidator } from '../../../src/adapters/schema/ajv-schema-validator.js';
import { doublingSchema } from '../../support/doubling-schema.js';
import { ParsedReferenceScanner } from '../../../src/adapters/content/parsed-reference-scanner.js';
import { EntryDigester } from '../../../src/application/integrity/entry-digester.js';
import { ValidatePackage } from '../../../src/application/use-cases/validate-package.js';
import type { CheckName } from '../../../src/domain/validation/check-report.js';
import { KeyRequiredError } from '../../../src/domain/errors.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { demoPackage } from '../../support/demo-package.js';
import { MAX_KEY_FILE_BYTES, SignatureCheck } from '../../../src/application/signing/signature-check.js';
import { fakeKey, fakeScheme } from '../../fakes/fake-signature-scheme.js';

const hasher = new NodeHasher();
const validate = async (files: Record<string, string | Uint8Array>) => {
  const signatures = new SignatureCheck({ rsa: fakeScheme(), openpgp: fakeScheme('OpenPGP') }, hasher);
  const report = await new ValidatePackage(new MemoryOpener().add('pkg', files), new EntryDigester(hasher, new ParsedReferenceScanner()), new AjvSchemaValidator(), signatures).execute('pkg');
  const check = (name: CheckName) => report.checks.find((c) => c.check === name)!;
  return { report, check };
};

const withSecurity = (files: Record<string, string | Uint8Array>): Record<string, string | Uint8Array> => {
  const checksums = Object.fromEntries(Object.entries(files).map(([path, bytes]) => [path, hasher.sha256(bytes)]));
  return { ...files, 'security.json': JSON.stringify({ security: { integrityChecks: { checksums } } }) };
};

const DATASET = {
  'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json', schemaFile: 'data/items.schema.json', schemaType: 'json-schema' } } } }),
  'data/items.schema.json': JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'string' }, n: { type: 'integer' } } }),
};

describe('ValidatePackage', () => {
  it('passes all six checks on a good package', async () => {
    const { report } = await validate(withSecurity(demoPackage({ ...DATASET, 'data/items.json': '[{"id":"a","n":1}]' })));
    expect(report.checks.map((c) => [c.check, c.passed])).toEqual([
      ['metadata', true],
      ['manifest', true],
      ['routes', true],
      ['storage', true],
      ['security', true],
      ['content', true],
    ]);
    expect(report.valid).toBe(true);
  });

  it('reports a missing metadata.json and invalid JSON with file and position', async () => {
    const files = demoPackage({ 'routes.json': '{\n  "routes": [\n}' });
    delete files['metadata.json'];
    const { report, check } = await validate(files);
    expect(report.valid).toBe(false);
    expect(check('metadata').errors).toEqual(['metadata.json is missing']);
    expect(check('routes').errors[0]).toMatch(/^routes\.json:3:1: invalid JSON/);
  });

  it('reports metadata rule violations', async () => {
    const { check } = await validate(demoPackage({ 'metadata.json': JSON.stringify({ name: 'Bad Name', version: '1', description: 'x', guid: 'pkg://x', uuid: 'nope' }) }));
    expect(check('metadata').errors[0]).toMatch(/name: must be kebab-case.*version: must be a semantic version.*uuid/);
  });

  it('fails the manifest check when a resource does not exist', async () => {
    const { check } = await validate(demoPackage({ 'manifest.json': JSON.stringify({ 'content/gone.html': { type: 'text/html', visibility: 'exported' } }) }));
    expect(check('manifest').errors).toEqual(['resource content/gone.html does not exist']);
  });

  it('says a missing resource is a file of the package spelled in another Unicode form, which looks the same on screen', async () => {
    // A file a macOS tool named decomposed (NFD); routes.json and manifest.json typed composed (NFC).
    const { check } = await validate(
      demoPackage({
        'content/cafe\u0301.html': '<p>cafe</p>',
        'manifest.json': JSON.stringify({ 'content/caf\u00e9.html': { type: 'text/html', visibility: 'exported' } }),
        'routes.json': JSON.stringify({ routes: [{ path: '/cafe', resource: 'content/caf\u00e9.html' }] }),
      }),
    );
    const told = 'resource content/caf\u00e9.html does not exist as spelled: the file of that name is spelled decomposed (NFD), and this composed (NFC); spell both alike';
    expect(check('manifest').errors).toEqual([told]);
    expect(check('routes').errors).toEqual([`route /cafe: ${told}`]);
  });

  it("reports a file spelled in another Unicode form than security.json names it as that, not as a missing file and an uncovered one that look alike", async () => {
    const files = demoPackage({ 'content/cafe\u0301.html': '<p>cafe</p>' });
    const secured = withSecurity(files);
    const security = (secured['security.json'] as string).replace('cafe\\u0301', 'caf\\u00e9').replace('cafe\u0301', 'caf\u00e9');
    const { check } = await validate({ ...files, 'security.json': security });
    expect(check('security').errors).toEqual(['file spelled in another Unicode form than its checksum names it: content/caf\u00e9.html, decomposed (NFD) in the package and composed (NFC) in security.json']);
  });

  it('checks route targets, dataset route placement and the index', async () => {
    const routes = {
      index: 'content/style.css',
      routes: [
        { path: '/x', resource: 'content/missing.html' },
        { path: '/data/items', dataset: 'items' },
        { path: '/dep', resource: 'pkg://example.org/dep/content/a.html' },
      ],
    };
    const metadata = JSON.stringify({ ...JSON.parse(demoPackage()['metadata.json'] as string), dependencies: { 'pkg://example.org/dep': '^1.0.0' } });
    const { check } = await validate(demoPackage({ ...DATASET, 'data/items.json': '[]', 'metadata.json': metadata, 'routes.json': JSON.stringify(routes) }));
    // With dependencies declared and none resolved, a content file the package lacks may come from one: named, not failed.
    expect(check('routes').errors).toEqual(['route /data/items: dataset routes must live under /api/v1/data/', 'index content/style.css is not an HTML file']);
    expect(check('routes').notes).toContainEqual(expect.stringMatching(/^warning: 2 resources could not be checked.*: content\/missing\.html, pkg:\/\/example\.org\/dep\/content\/a\.html$/));
    const alone = await validate(demoPackage({ 'routes.json': JSON.stringify({ routes: [{ path: '/x', resource: 'content/missing.html' }] }) }));
    expect(alone.check('routes').errors).toEqual(['route /x: resource content/missing.html does not exist']);
  });

  it('validates dataset rows against their schema, row by row', async () => {
    const { check } = await validate(demoPackage({ ...DATASET, 'data/items.json': '[{"id":"a"},{"n":"x"}]' }));
    expect(check('storage').errors).toEqual(["dataset items: data/items.json row 2 must have required property 'id'", 'dataset items: data/items.json row 2/n must be integer']);
  });

  it('accepts YAML datasets and reports missing dataset files', async () => {
    const yaml = { ...DATASET, 'storage.json': DATASET['storage.json'].replace('items.json', 'items.yaml'), 'data/items.yaml': '- id: a\n  n: 1\n' };
    expect((await validate(demoPackage(yaml))).check('storage').passed).toBe(true);
    const { check } = await validate(demoPackage(DATASET));
    expect(check('storage').errors).toEqual(['dataset items: data/items.json does not exist']);
  });

  it('names mismatched, missing and uncovered files in the security check', async () => {
    const files = withSecurity(demoPackage({ 'content/gone.txt': 'x' }));
    delete files['content/gone.txt'];
    files['content/style.css'] = 'tampered';
    files['content/extra.txt'] = 'not covered';
    const { check } = await validate(files);
    expect(check('security').errors).toEqual(['checksum mismatch: content/style.css', 'missing file: content/gone.txt', 'file not covered by checksums: content/extra.txt']);
  });

  it('reads every dataset as the reactor does, schema or not: a file it would refuse, or items it would not serve, fail storage', async () => {
    const schemaless = (data: string) => withSecurity(demoPackage({ 'storage.json': JSON.stringify({ storage: { dataSets: { notes: { source: 'data/notes.json' } } } }), 'data/notes.json': data }));
    expect((await validate(schemaless('[{"id":'))).check('storage').errors).toEqual(['dataset notes: data/notes.json:1:8: invalid JSON: unexpected end of input']);
    expect((await validate(schemaless(`[${'['.repeat(100)}${']'.repeat(100)}]`))).check('storage').errors).toEqual([expect.stringMatching(/^dataset notes: data\/notes\.json: nests deeper than 66 levels/)]);
    // The second "a", and the item with id "3" after an item that is third without one.
    expect((await validate(schemaless('[{"id":"a"},{"id":"a"},{"t":"third"},{"id":"3"}]'))).check('storage').errors).toEqual([
      'dataset notes: data/notes.json: 2 items have the id of an earlier item and are not served: item 2 (id "a"), item 4 (id "3"); give each item an id of its own',
    ]);
    expect((await validate(schemaless('[{"id":"a"},{"t":"second"}]'))).check('storage')).toMatchObject({ passed: true, errors: [] });
    expect((await validate(schemaless('[{"id":"a","n":[1e400]}]'))).check('storage').errors).toEqual([
      'dataset notes: data/notes.json holds a number beyond what JSON numbers carry (like 1e400): it is read as Infinity and served as null',
    ]);
  });

  it('takes a file named constructor or toString for uncovered like any other (checksums are looked up by own key)', async () => {
    const files = withSecurity(demoPackage());
    files['constructor'] = 'slipped in';
    files['toString'] = 'slipped in too';
    const { check } = await validate(files);
    expect(check('security').errors).toEqual(['file not covered by checksums: constructor', 'file not covered by checksums: toString']);
  });

  it('checks a declared signature as a seventh check, and refuses encrypted packages with KeyRequiredError', async () => {
    const signed = async (key: Uint8Array): Promise<Record<string, string | Uint8Array>> => {
      const files: Record<string, string | Uint8Array> = { ...demoPackage(), 'signature.pub.pem': key };
      const paths = Object.keys(files).sort();
      const prepared = await fakeScheme().prepare({ key });
      const signature = await prepared.sign((async function* () {
        for (const path of paths) yield typeof files[path] === 'string' ? new TextEncoder().encode(files[path] as string) : (files[path] as Uint8Array);
      })());
      const checksums = Object.fromEntries(paths.map((path) => [path, hasher.sha256(files[path]!)]));
      return { ...files, 'signature.sig': signature, 'security.json': JSON.stringify({ security: { integrityChecks: { checksums }, digitalSignatures: { publicKey: 'signature.pub.pem', signatureFile: 'signature.sig' } } }) };
    };
    const good = await validate(await signed(fakeKey('a')));
    expect(good.report.valid).toBe(true);
    expect(good.check('signature').notes).toEqual(['RSA-SHA256 signature by signature.pub.pem matches']);
    const forged = await signed(fakeKey('a'));
    forged['signature.sig'] = 'signed:0000:fake-key:a';
    const bad = await validate(forged);
    expect(bad.report.valid).toBe(false);
    expect(bad.check('signature').errors).toEqual([expect.stringMatching(/does not match the package content/)]);
    // An embedded key altered into one its scheme cannot read: the signature fails, where the whole report was a KeyError.
    const unreadable = await signed(fakeKey('a'));
    unreadable['signature.pub.pem'] = 'not a key';
    unreadable['security.json'] = (await signed(fakeKey('a')))['security.json']!.toString().replace(/"signature\.pub\.pem":"[0-9a-f]{64}"/, `"signature.pub.pem":"${hasher.sha256('not a key')}"`);
    const keyless = await validate(unreadable);
    expect(keyless.report.valid).toBe(false);
    expect(keyless.check('signature').errors).toEqual([expect.stringMatching(/^the embedded key signature\.pub\.pem cannot check the signature: /)]);
    // A key no real one weighs is refused before it is read: each is read whole.
    const padded = new Uint8Array(MAX_KEY_FILE_BYTES + 1);
    padded.set(fakeKey('a'));
    const heavy = await signed(padded);
    expect((await validate(heavy)).check('signature').errors).toEqual([`signature.pub.pem holds ${MAX_KEY_FILE_BYTES + 1} bytes, more than the 16 MiB a key or signature file may (refused unread)`]);
    expect((await validate(demoPackage())).check('signature')).toBeUndefined();
    await expect(validate({ 'metadata.json': demoPackage()['metadata.json']!, 'signature.json': '{}', 'package.enc': 'x' })).rejects.toThrow(KeyRequiredError);
  });

  it("checks authentication.json, when there is one, as the reactor reads it: field types, and a password file that is in the package", async () => {
    const auth = (authentication: unknown, extra: Record<string, string> = {}) => validate(demoPackage({ 'authentication.json': JSON.stringify({ authentication }), ...extra }));
    const good = await auth({ basicAuth: { enabled: true, realm: 'Staff', passwdFile: 'auth/htpasswd' } }, { 'auth/htpasswd': 'ann:$2y$04$abc' });
    expect(good.report.checks.map((c) => c.check)).toEqual(['metadata', 'manifest', 'routes', 'storage', 'security', 'authentication', 'content']);
    expect(good.check('authentication')).toMatchObject({ passed: true, notes: ['basic auth enabled'] });
    expect((await auth({ basicAuth: { enabled: true, passwdFile: '../../etc/passwd' } })).check('authentication').errors).toEqual(['authentication.json: authentication.basicAuth.passwdFile: ../../etc/passwd is not in the package']);
    const wrong = await auth({ basicAuth: 'yes', oauth2: { enabled: true, authorizationUrl: 'javascript:alert(1)', scopes: 'openid' } });
    expect(wrong.report.valid).toBe(false);
    expect(wrong.check('authentication').errors[0]).toMatch(/basicAuth: must be an object.*authorizationUrl: must be an http\(s\) URL.*scopes: must be an array of strings/);
    expect((await validate(demoPackage({}))).report.checks.map((c) => c.check)).not.toContain('authentication');
  });

  it('fails an enabled oauth2 without the fields the reactor needs of the package, but not for the client secret, which deploy.json holds', async () => {
    const { report, check } = await validate(demoPackage({ 'authentication.json': JSON.stringify({ authentication: { oauth2: { enabled: true } } }) }));
    expect(report.valid).toBe(false);
    expect(check('authentication').errors).toEqual([
      'authentication.json: authentication.oauth2.clientId: required when oauth2 is enabled; authentication.oauth2.authorizationUrl: required when oauth2 is enabled; authentication.oauth2.tokenUrl: required when oauth2 is enabled; authentication.oauth2.userinfoUrl: required when oauth2 is enabled',
    ]);
    const complete = { enabled: true, clientId: 'c', authorizationUrl: 'https://p.example/a', tokenUrl: 'https://p.example/t', userinfoUrl: 'https://p.example/u' };
    expect((await validate(demoPackage({ 'authentication.json': JSON.stringify({ authentication: { oauth2: complete } }) }))).check('authentication').passed).toBe(true);
  });

  it('fails metadata.json with a repeated key or bytes that are not UTF-8, and reads a dataset file\'s repeated key as the data API reads a body', async () => {
    const metadata = demoPackage()['metadata.json'] as string;
    const repeated = await validate(demoPackage({ 'metadata.json': metadata.replace('{', '{"name": "other",') }));
    expect(repeated.check('metadata').errors).toEqual([expect.stringMatching(/^metadata\.json:1:\d+: invalid JSON: the key "name" appears twice in one object$/)]);
    const bytes = new TextEncoder().encode(metadata.replace(/"description":\s*"[^"]*"/, '"description": "caf__"'));
    const at = bytes.indexOf(0x5f);
    bytes.set([0xe9, 0x20], at);
    expect((await validate(demoPackage({ 'metadata.json': bytes }))).check('metadata').errors).toEqual(['metadata.json: is not valid UTF-8 (JSON and YAML documents are UTF-8)']);
    expect((await validate(demoPackage({ ...DATASET, 'data/items.json': '[{"id": "a", "n": 1, "n": 2}]' }))).check('storage').passed).toBe(true);
  });

  it('reports a layer\'s .pkg-tombstones that the reactor would refuse, in the storage check', async () => {
    for (const tombstones of ['{"x":1}', 'not json']) {
      const { report, check } = await validate(demoPackage({ 'content/.pkg-tombstones': tombstones }));
      expect(report.valid).toBe(false);
      expect(check('storage').errors).toEqual([expect.stringMatching(/content\/\.pkg-tombstones/)]);
    }
    expect((await validate(demoPackage({ 'content/.pkg-tombstones': '["gone.html"]' }))).check('storage').passed).toBe(true);
  });

  it('warns of file-answer attributes a dataset route carries, which its answers never take', async () => {
    const routes = { routes: [{ path: '/api/v1/data/items', dataset: 'items', responseRewrite: { body: 'x' }, responseHeaders: { 'X-D': 'd' } }] };
    const { check } = await validate(demoPackage({ ...DATASET, 'data/items.json': '[]', 'routes.json': JSON.stringify(routes) }));
    expect(check('routes').notes).toContainEqual('warning: dataset route /api/v1/data/items carries responseRewrite, responseHeaders, which only file routes apply: its answers are the data API\'s');
    expect(check('routes').passed).toBe(true);
  });

  it('warns of routes no request reaches, as the reactor reads request paths, and not of those a client can spell', async () => {
    const paths = ['/a/./b', '//x', '/a\\b', '/docs/../x', '/a b', '/%zz', '/a?b', '/dir/', '/'];
    const routes = { routes: [...paths.map((path) => ({ path, resource: 'content/index.html' })), { path: '/old//spot', resource: 'content/index.html', remap: '/new' }] };
    const { check } = await validate(demoPackage({ 'routes.json': JSON.stringify(routes) }));
    expect(check('routes').notes.filter((note) => note.includes('never'))).toEqual([
      'warning: route "/a/./b" can never be requested: a request for it is refused (dot segment in request path)',
      'warning: route "//x" can never be requested: a request for it is read as /x',
      'warning: route "/a\\\\b" can never be requested: a request for it is refused (backslash in request path)',
      'warning: route "/docs/../x" can never be requested: a request for it is refused (dot segment in request path)',
    ]);
    expect(check('routes').passed).toBe(true);
  });

  it('warns of routes at paths the reactor answers itself, which are never served, and not of the data API route of their own dataset', async () => {
    const file = (path: string, extra: object = {}) => ({ path, resource: 'content/index.html', ...extra });
    const routes = {
      routes: [
        file('/healthz'),
        file('/metrics'),
        file('/introspect/status'),
        file('/package/site/logs'),
        file('/__pkg/graphiql/x.js'),
        file('/graphql'),
        file('/api/v1/openapi.json'),
        file('/api/v1/data/items'),
        file('/page', { remap: '/api/v1/data/items/a' }),
        { path: '/api/v1/data/other', dataset: 'items' },
        { path: '/api/v1/data/items', dataset: 'items' },
        file('/introspect/page.html'),
        file('/package/index.html'),
      ],
    };
    const { check } = await validate(demoPackage({ ...DATASET, 'data/items.json': '[]', 'routes.json': JSON.stringify(routes) }));
    const never = (route: string, owner: string) => `warning: route ${route} is never served: the reactor answers that path itself (${owner})`;
    expect(check('routes').notes.filter((note) => note.includes('itself'))).toEqual([
      never('"/healthz"', 'its health probe, where the package is mounted at /'),
      never('"/metrics"', 'its metrics, where the package is mounted at /'),
      never('"/introspect/status"', 'introspection, where the package is mounted at /'),
      never('"/package/site/logs"', 'introspection, where the package is mounted at /'),
      never('"/__pkg/graphiql/x.js"', 'its bundled assets, where the package is mounted at /'),
      never('"/graphql"', 'GraphQL'),
      never('"/api/v1/openapi.json"', 'the data API description'),
      never('"/api/v1/data/items"', 'the data API of dataset items'),
      never('"/page" (remapped to "/api/v1/data/items/a")', 'the data API of dataset items'),
      never('"/api/v1/data/other"', 'the data API of dataset other, not items'),
    ]);
    expect(check('routes').passed).toBe(true);
  });

  it('warns of two routes serving one path, a remap\'s included, and not of a path a remap left to another route', async () => {
    const file = (path: string, extra: object = {}) => ({ path, resource: 'content/index.html', ...extra });
    const routes = { routes: [file('/a', { remap: '/b' }), file('/b'), file('/c'), file('/c'), file('/d', { remap: '/e' }), file('/d')] };
    const { check } = await validate(demoPackage({ 'routes.json': JSON.stringify(routes) }));
    expect(check('routes').notes.filter((note) => note.includes('more than once'))).toEqual([
      'warning: route /b is declared (or remapped to) more than once; the first wins',
      'warning: route /c is declared (or remapped to) more than once; the first wins',
    ]);
  });

  it('warns of routes that need an identity in a package that enables no authentication, which answer 401 to everyone', async () => {
    const file = (path: string, accessControl: object) => ({ path, resource: 'content/index.html', accessControl });
    const routes = { routes: [file('/a', { roles: ['admin'] }), file('/b', {}), file('/open', { authenticationRequired: false }), ...[1, 2, 3, 4, 5].map((n) => file(`/n${n}`, {}))] };
    const locked = (files: Record<string, string>) => validate(demoPackage({ 'routes.json': JSON.stringify(routes), ...files })).then(({ check }) => check('routes').notes.filter((note) => note.includes('401')));
    expect(await locked({})).toEqual([
      'warning: routes /a, /b, /n1, /n2, /n3 and 2 more need an identity, but the package enables no authentication (basicAuth or oauth2 in authentication.json): they answer 401 to every request',
    ]);
    expect(await locked({ 'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: false } } }) })).toHaveLength(1);
    expect(await locked({ 'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, passwdFile: 'htpasswd' } } }), htpasswd: 'a:b\n' })).toEqual([]);
  });

  it('fails the storage check for two layers with one path, which the reactor refuses to load', async () => {
    const storage = JSON.stringify({ storage: { layers: [{ path: 'layers/a', writable: true }, { path: 'layers/a', writable: false }] } });
    const { check } = await validate(demoPackage({ 'storage.json': storage, 'layers/a/x.html': '<p>x</p>' }));
    expect(check('storage').errors).toEqual(['storage.json: storage.layers[1].path: "layers/a" is the path of storage.layers[0] too: a folder is one layer']);
  });

  it('flags external http(s) references in content', async () => {
    const { check } = await validate(demoPackage({ 'content/index.html': '<p>\n<script src="https://cdn.example.com/x.js"></script>' }));
    expect(check('content').errors).toEqual(['content/index.html:2: external reference https://cdn.example.com/x.js']);
  });

  it('flags the hosts the headers of routes.json make a browser load from: Link (its target and imagesrcset), Refresh, Speculation-Rules', async () => {
    const routes = {
      routes: [
        { path: '/', resource: 'content/index.html', responseHeaders: { Link: '</style.css>; rel=preload; as=style, <https://cdn.example/x.css>; rel=stylesheet; title="a, <b>"' } },
        { path: '/img', resource: 'content/index.html', headers: { link: '</a.png>; rel=preload; as=image; imagesrcset="/a.png 1x, //img.example/a2.png 2x"' } },
        { path: '/go', resource: 'content/index.html', responseRewrite: { headers: { Refresh: '0; url=https://elsewhere.example/' } } },
        { path: '/rules', resource: 'content/index.html', responseHeaders: { 'Speculation-Rules': '"/rules.json", "https://rules.example/r.json"' } },
        // Sent over by responseRewrite.headers, as the reactor does: only the local one goes out.
        { path: '/over', resource: 'content/index.html', responseHeaders: { Link: '<https://gone.example/x.js>; rel=modulepreload' }, responseRewrite: { headers: { LINK: '</x.js>; rel=modulepreload' } } },
        { path: '/csp', resource: 'content/index.html', responseHeaders: { 'Content-Security-Policy': "default-src 'self'; report-uri https://reports.example/csp", Refresh: '5' } },
      ],
    };
    const { check } = await validate(demoPackage({ 'routes.json': JSON.stringify(routes) }));
    expect(check('content').errors).toEqual([
      'routes.json: route /: Link header: external reference https://cdn.example/x.css',
      'routes.json: route /img: Link header: external reference //img.example/a2.png',
      'routes.json: route /go: Refresh header: external reference https://elsewhere.example/',
      'routes.json: route /rules: Speculation-Rules header: external reference https://rules.example/r.json',
    ]);
  });

  it('scans a file as the type it is served as: an extensionless page sniffed as HTML, a .txt the manifest makes text/html', async () => {
    const page = '<!doctype html>\n<script src="https://cdn.example.com/x.js"></script>';
    expect((await validate(demoPackage({ 'content/about': page }))).check('content').errors).toEqual(['content/about:2: external reference https://cdn.example.com/x.js']);
    const manifest = { 'content/index.html': { type: 'text/html', visibility: 'exported' }, 'content/page.txt': { type: 'text/html; charset=utf-8', visibility: 'exported' }, 'content/notes.html': { type: 'text/plain', visibility: 'exported' } };
    const { check } = await validate(demoPackage({ 'manifest.json': JSON.stringify(manifest), 'content/page.txt': page, 'content/notes.html': page }));
    expect(check('content').errors).toEqual(['content/page.txt:2: external reference https://cdn.example.com/x.js']);
  });

  it('reads a manifest type as browsers do, whatever its case and parameters: TEXT/HTML and image/svg+xml; charset=utf-8 are scanned', async () => {
    const page = '<svg xmlns="http://www.w3.org/2000/svg">\n<image href="https://cdn.example.com/x.png"/></svg>';
    const manifest = { 'content/a.html': { type: 'TEXT/HTML', visibility: 'exported' }, 'content/b.svg': { type: 'image/svg+xml; charset=utf-8', visibility: 'exported' } };
    const { check } = await validate(demoPackage({ 'manifest.json': JSON.stringify(manifest), 'content/a.html': page, 'content/b.svg': page }));
    expect(check('content').errors).toEqual(['content/a.html:2: external reference https://cdn.example.com/x.png', 'content/b.svg:2: external reference https://cdn.example.com/x.png']);
  });

  it('reads a page with a UTF-16 byte order mark as UTF-16, as a browser does whatever the Content-Type says', async () => {
    const page = '<p>\n<script src="https://cdn.example.com/x.js"></script>';
    const le = new Uint8Array([0xff, 0xfe, ...[...page].flatMap((c) => [c.charCodeAt(0), 0])]);
    const be = new Uint8Array([0xfe, 0xff, ...[...page].flatMap((c) => [0, c.charCodeAt(0)])]);
    const { check } = await validate(demoPackage({ 'content/le.html': le, 'content/be.html': be }));
    expect(check('content').errors).toEqual(['content/be.html:2: external reference https://cdn.example.com/x.js', 'content/le.html:2: external reference https://cdn.example.com/x.js']);
  });

  it('reports a dataset schema that goes round in a circle in the storage check', async () => {
    const files = demoPackage({ ...DATASET, 'data/items.schema.json': JSON.stringify({ $ref: '#' }), 'data/items.json': '[{"id":"a"}]' });
    const { check } = await validate(files);
    expect(check('storage').errors).toEqual([expect.stringMatching(/data\/items\.schema\.json cannot check a value: it refers to itself without ever descending into the value/)]);
  });

  it('reports, at once, a dataset schema whose checks of one item multiply past the limit, naming the dataset, the file and the limit', async () => {
    const files = demoPackage({ ...DATASET, 'data/items.schema.json': JSON.stringify(doublingSchema(24)), 'data/items.json': '[{"id":"a"}]' });
    const { report, check } = await validate(files);
    expect(report.valid).toBe(false);
    expect(check('storage').errors).toEqual([expect.stringMatching(/^dataset items: data\/items\.schema\.json: checking one value may take more than 10,000 subschema checks/)]);
  });

  it('says which files it could not scan to their end, and still reports what the others hold', async () => {
    const deep = `${'@media screen{'.repeat(200_000)}a{b:url(//hidden.example/x.png)}${'}'.repeat(200_000)}`;
    const { report, check } = await validate(demoPackage({ 'content/deep.css': deep, 'content/index.html': '<img src="//cdn.example.com/i.png">' }));
    expect(report.valid).toBe(false);
    expect(check('content').errors).toEqual(['content/index.html:1: external reference //cdn.example.com/i.png']);
    expect(check('content').notes).toEqual(['warning: content/deep.css is not scanned for external references: its CSS nests deeper than the CSS parser reads']);
  });
});
