import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ConfigParseError, ConfigValidationError } from '../../../src/domain/errors.js';
import { decodeUtf8, parseDocument, parseJson } from '../../../src/domain/package/documents.js';
import { generateManifest, normalizeManifest } from '../../../src/domain/package/manifest.js';
import { generateRoutes, normalizeRoutes } from '../../../src/domain/package/routes.js';
import { normalizeStorage, storageDocument } from '../../../src/domain/package/storage.js';
import { normalizeAuthentication } from '../../../src/domain/package/authentication.js';
import { normalizeDeploy } from '../../../src/domain/auth/deploy-config.js';

describe('documents', () => {
  it('reports the file, line and column of invalid JSON', () => {
    const error = (() => {
      try {
        parseJson('{\n  "a": 1,\n}', 'routes.json');
      } catch (e) {
        return e as ConfigParseError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigParseError);
    expect(error).toMatchObject({ file: 'routes.json', line: 3, column: 1 });
    expect(error!.message).toMatch(/^routes\.json:3:1: invalid JSON/);
  });

  it('refuses a key repeated in one object of a JSON document where it stands, as YAML does, unless the document is a dataset file', () => {
    expect(() => parseJson('{"mounts": [{"path": "/", "source": "site",\n "path": "/x"}]}', 'mounts.json')).toThrow(expect.objectContaining({ code: 'CONFIG_PARSE', file: 'mounts.json', line: 2, column: 2, message: 'mounts.json:2:2: invalid JSON: the key "path" appears twice in one object' }));
    expect(() => parseDocument('{"name": "a", "n\\u0061me": "b"}', 'metadata.json')).toThrow(/the key "name" appears twice/);
    expect(() => parseJson('\ufeff[{"a": {"b": 1}}, {"a": {"b": 1, "b": 2}}]', 'x.json')).toThrow(/:1:34: invalid JSON: the key "b" appears twice/);
    // Keys of sibling and nested objects, and braces and colons inside strings, are not repeats.
    expect(parseJson('{"a": {"a": 1}, "b": [{"a": "}{\\"a\\":"}, {"a": 2}], "c": "\\\\", "d": {}}', 'x.json')).toEqual({ a: { a: 1 }, b: [{ a: '}{"a":' }, { a: 2 }], c: '\\', d: {} });
    expect(() => parseJson('{"a" :1, "a"\n:2}', 'x.json')).toThrow(/the key "a" appears twice/);
    expect(parseJson('{"a": "\\":", "b": "\\" :"}', 'x.json')).toEqual({ a: '":', b: '" :' });
    expect(parseDocument('[{"id": "1", "id": "2"}]', 'data/x.json', { lastKeyWins: true })).toEqual([{ id: '2' }]);
    // A string of megabytes, in a document that must be searched (a space before a colon): no stack to overflow.
    const long = 'x'.repeat(9_000_000);
    expect(parseJson(`{"description" : "${long}", "name" : "a"}`, 'metadata.json')).toEqual({ description: long, name: 'a' });
    expect(() => parseJson(`{"a" : "${long}\\\\", "a" : 1}`, 'x.json')).toThrow(/the key "a" appears twice/);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 1);
        expect(parseJson(text, 'x.json')).toEqual(JSON.parse(text));
      }),
    );
  });

  it('refuses bytes that are not UTF-8, naming the file', () => {
    expect(() => decodeUtf8(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), 'metadata.json')).toThrow(new ConfigParseError('metadata.json', 'is not valid UTF-8 (JSON and YAML documents are UTF-8)'));
    expect(decodeUtf8(new TextEncoder().encode('\ufeff{"a": "café"}'), 'x.json')).toBe('{"a": "café"}');
  });

  it('reports invalid YAML with its position', () => {
    expect(() => parseDocument('a: [1, 2\nb: 3', 'data/x.yaml')).toThrow(ConfigParseError);
    expect(parseDocument('- a: 1\n- a: 2\n', 'data/x.yml')).toEqual([{ a: 1 }, { a: 2 }]);
  });
});

describe('manifest.json', () => {
  const canonical = { 'content/a.html': { type: 'text/html', visibility: 'exported' } };

  it('reads the canonical map and the {resources} wrapper, dropping unknown fields', () => {
    expect(normalizeManifest(canonical)).toEqual(canonical);
    expect(normalizeManifest({ resources: { 'content/a.html': { type: 'text/html', visibility: 'exported', extra: 1 } } })).toEqual(canonical);
    expect(normalizeManifest({ 'content/a.html': { type: 'text/html', visibility: 'private', version: '2' } })).toEqual({
      'content/a.html': { type: 'text/html', visibility: 'private', version: '2' },
    });
  });

  it('answers a map written in canonical form, in order, with that map itself, and anything else with the canonical copy the same bytes', () => {
    const written = JSON.parse('{"content/a.html":{"type":"text/html","visibility":"exported"},"content/b.css":{"type":"text/css","visibility":"private","version":"2"}}');
    expect(normalizeManifest(written)).toBe(written);
    const entry = fc.record(
      { type: fc.constantFrom('text/html', 'text/css; charset=utf-8', 'html', 7), visibility: fc.constantFrom('exported', 'private', 'public'), version: fc.constantFrom('1', 2), extra: fc.constant(true) },
      { requiredKeys: [] },
    );
    const keyed = fc.uniqueArray(fc.tuple(fc.constantFrom('content/a.html', 'content/b/c.js', 'content/B.txt', 'content/é.html', '__proto__', 'content/a'), entry), { selector: ([path]) => path, maxLength: 5 });
    fc.assert(
      fc.property(keyed, fc.boolean(), (pairs, reversed) => {
        // As parsed: JSON.parse makes `__proto__` a key like any other.
        const parse = (list: typeof pairs) => JSON.parse(JSON.stringify(Object.fromEntries(list.map(([path, value]) => [path === '__proto__' ? '@proto@' : path, value]))).replaceAll('@proto@', '__proto__'));
        const outcome = (document: unknown) => {
          try {
            return JSON.stringify(normalizeManifest(document));
          } catch (error) {
            return (error as Error).message;
          }
        };
        // The same entries written in another order always take the copying path: both read the same.
        expect(outcome(parse(pairs))).toBe(outcome(parse(reversed ? [...pairs].reverse() : [...pairs.slice(1), ...pairs.slice(0, 1)])));
      }),
    );
  });

  it('normalizes the legacy list form', () => {
    expect(normalizeManifest({ content: [{ file: 'content/a.html', mime: 'text/html' }] })).toEqual(canonical);
  });

  it('rejects bad entries', () => {
    expect(() => normalizeManifest({ 'content/a.html': { type: 'html', visibility: 'public' } })).toThrow(ConfigValidationError);
  });

  it('takes a type only when all of it can be sent as a Content-Type', () => {
    for (const type of ['text/html', 'image/svg+xml', 'text/html; charset=utf-8', 'text/plain;charset="utf-8"', 'application/vnd.api+json;', 'multipart/x; boundary="a b"'])
      expect(normalizeManifest({ 'content/a': { type, visibility: 'exported' } })['content/a']!.type).toBe(type);
    for (const type of ['text/pl\u20acin', 'text/html\r\nSet-Cookie: x=1', 'text/html extra', 'text/', 'text/html; charset', 'text/html; a="\u0001"'])
      expect(() => normalizeManifest({ 'content/a': { type, visibility: 'exported' } })).toThrow(/content\/a: "type" must be a MIME type string/);
  });

  it('generates from content/ only, dotfiles included, sorted, exported', () => {
    const manifest = generateManifest(['metadata.json', 'content/z.css', 'content/.well-known/x.txt', 'content/a.html'], (p) => (p.endsWith('.css') ? 'text/css' : 'text/plain'));
    expect(Object.keys(manifest)).toEqual(['content/.well-known/x.txt', 'content/a.html', 'content/z.css']);
    expect(manifest['content/z.css']).toEqual({ type: 'text/css', visibility: 'exported' });
  });
});

describe('routes.json', () => {
  it('reads the canonical form', () => {
    const routes = { index: 'content/index.html', routes: [{ path: '/', resource: 'content/index.html' }, { path: '/api/v1/data/x', dataset: 'x', accessControl: { roles: ['admin'] } }] };
    expect(normalizeRoutes(routes)).toEqual(routes);
  });

  it('normalizes legacy target objects and routes keyed by path', () => {
    expect(
      normalizeRoutes({
        routes: { '/': { target: { file: 'content/index.html' } }, '/api/v1/data/x': { path: '/api/v1/data/x', target: { dataset: 'x' } } },
      }),
    ).toEqual({ routes: [{ path: '/', resource: 'content/index.html' }, { path: '/api/v1/data/x', dataset: 'x' }] });
    expect(normalizeRoutes({ routes: [{ path: '/', target: { file: 'content/index.html' } }] }).routes).toEqual([{ path: '/', resource: 'content/index.html' }]);
    expect(normalizeRoutes({ routes: null })).toEqual({ routes: [] });
  });

  it('rejects an inner path that differs from its key, and routes without a target', () => {
    expect(() => normalizeRoutes({ routes: { '/a': { path: '/b', resource: 'content/a.html' } } })).toThrow(/differs from its key/);
    expect(() => normalizeRoutes({ routes: [{ path: '/a' }] })).toThrow(/exactly one of/);
    expect(() => normalizeRoutes({ routes: [{ path: 'a', resource: 'content/a' }] })).toThrow(/starting with/);
  });

  it('keeps route attributes and rejects malformed header maps', () => {
    const route = { path: '/a', resource: 'content/a.html', remap: '/b', responseRewrite: { body: 'x', headers: { 'X-A': '1' } }, responseHeaders: { 'X-B': '2' }, requestHeaders: { 'X-C': '3' }, headers: { 'Cache-Control': 'no-store' } };
    expect(normalizeRoutes({ routes: [route] }).routes[0]).toEqual(route);
    expect(() => normalizeRoutes({ routes: [{ ...route, responseHeaders: { 'X-B': 'a\r\nSet-Cookie: x' } }] })).toThrow(ConfigValidationError);
    // Whatever node would refuse to send (it throws at the route's first answer) is refused at load; Latin-1 is sent as it is.
    for (const value of ['5 \u20ac', 'bell\u0007', 'del\u007f', '\ud83d\ude00']) expect(() => normalizeRoutes({ routes: [{ ...route, responseHeaders: { 'X-B': value } }] })).toThrow(/responseHeaders: must be an object of header name to string value \(tab, space, visible ASCII or Latin-1 characters\)/);
    expect(normalizeRoutes({ routes: [{ ...route, responseHeaders: { 'X-B': 'caf\u00e9\tok' } }] }).routes[0]!.responseHeaders).toEqual({ 'X-B': 'caf\u00e9\tok' });
    // What frames the answer is the reactor's: a second Content-Length, or chunked beside a length, splits it for proxies.
    expect(() => normalizeRoutes({ routes: [{ ...route, responseHeaders: { 'Content-Length': '5' } }] })).toThrow(/responseHeaders: Content-Length is the reactor's to set for the bytes it sends, not a route's/);
    expect(() => normalizeRoutes({ routes: [{ ...route, headers: { 'transfer-encoding': 'chunked', Connection: 'close' } }] })).toThrow(/transfer-encoding, Connection are the reactor's to set/);
    expect(() => normalizeRoutes({ routes: [{ ...route, responseRewrite: { headers: { 'Content-Encoding': 'gzip' } } }] })).toThrow(/responseRewrite\.headers: Content-Encoding is the reactor's/);
    // What each answer carries of its own: the time it is sent, and the id of its access-log line.
    expect(() => normalizeRoutes({ routes: [{ ...route, responseHeaders: { Date: 'Sat, 01 Jan 2000 00:00:00 GMT' } }] })).toThrow(/responseHeaders: Date is the reactor's to set for each answer it sends, not a route's/);
    expect(() => normalizeRoutes({ routes: [{ ...route, headers: { 'Cache-Control': 'no-cache', 'x-request-id': 'fixed' } }] })).toThrow(/headers: x-request-id is the reactor's to set for each answer/);
    expect(() => normalizeRoutes({ routes: [{ ...route, responseRewrite: { headers: { DATE: 'x', 'X-Request-ID': 'y' } } }] })).toThrow(/responseRewrite\.headers: DATE, X-Request-ID are the reactor's to set for each answer/);
    expect(normalizeRoutes({ routes: [{ ...route, requestHeaders: { 'X-Request-Id': 'forwarded' } }] }).routes[0]!.requestHeaders).toEqual({ 'X-Request-Id': 'forwarded' });
    // The reactor's own cookies: one package would sign visitors out of every mount.
    expect(() => normalizeRoutes({ routes: [{ ...route, responseHeaders: { 'Set-Cookie': 'pkg_session=; Max-Age=0; Path=/' } }] })).toThrow(/responseHeaders: Set-Cookie of pkg_session is the reactor's own cookie, not a route's/);
    expect(() => normalizeRoutes({ routes: [{ ...route, headers: { 'set-cookie': ' pkg_oauth_state=x' } }] })).toThrow(/headers: Set-Cookie of pkg_oauth_state is the reactor's own cookie/);
    expect(normalizeRoutes({ routes: [{ ...route, responseHeaders: { 'Set-Cookie': 'theme=dark; Path=/' } }] }).routes[0]!.responseHeaders).toEqual({ 'Set-Cookie': 'theme=dark; Path=/' });
    // Request headers are only exposed for forwarding reactors: nothing of this reactor's answer.
    expect(normalizeRoutes({ routes: [{ ...route, requestHeaders: { 'Content-Length': '5' } }] }).routes[0]!.requestHeaders).toEqual({ 'Content-Length': '5' });
  });

  it('generates two routes per HTML file, / for the index and one per dataset', () => {
    const { routes, collisions } = generateRoutes(['content/index.html', 'content/docs/a.html', 'content/style.css', 'metadata.json'], ['articles']);
    expect(routes.index).toBe('content/index.html');
    expect(routes.routes.map((r) => [r.path, r.resource ?? r.dataset])).toEqual([
      ['/', 'content/index.html'],
      ['/api/v1/data/articles', 'articles'],
      ['/docs/a', 'content/docs/a.html'],
      ['/docs/a.html', 'content/docs/a.html'],
      ['/index', 'content/index.html'],
      ['/index.html', 'content/index.html'],
      ['/style.css', 'content/style.css'],
    ]);
    expect(collisions).toEqual([]);
  });

  it('reports generated collisions and keeps the first', () => {
    const { routes, collisions } = generateRoutes(['content/a', 'content/a.html'], []);
    expect(collisions).toEqual(['/a']);
    expect(routes.routes.find((r) => r.path === '/a')?.resource).toBe('content/a');
    expect(routes.index).toBeUndefined();
  });
});

describe('storage.json', () => {
  it('reads datasets keyed by id and layers', () => {
    const storage = normalizeStorage({
      storage: {
        dataSets: { articles: { source: 'data/a.json', schemaFile: 'data/a.schema.json', schemaType: 'json-schema' }, db: { databaseFile: 'data/x.db', table: 't' } },
        layers: [{ path: 'layers/base/', writable: false, visibility: 'private' }],
      },
    });
    expect(storage.dataSets.articles).toEqual({ kind: 'schema', source: 'data/a.json', schemaFile: 'data/a.schema.json', schemaType: 'json-schema' });
    expect(storage.dataSets.db).toEqual({ kind: 'sqlite', databaseFile: 'data/x.db', table: 't' });
    expect(storage.layers).toEqual([{ path: 'layers/base', writable: false, visibility: 'private' }]);
    expect(storageDocument(storage).storage.dataSets).toEqual({
      articles: { source: 'data/a.json', schemaFile: 'data/a.schema.json', schemaType: 'json-schema' },
      db: { databaseFile: 'data/x.db', table: 't' },
    });
  });

  it('normalizes the legacy dataset list', () => {
    expect(normalizeStorage({ datasets: [{ name: 'x', source: 'data/x.yaml', format: 'yaml', schema: 'data/x.schema.json' }] }).dataSets).toEqual({
      x: { kind: 'schema', source: 'data/x.yaml', schemaFile: 'data/x.schema.json', schemaType: 'json-schema' },
    });
  });

  it('rejects unusable datasets', () => {
    expect(() => normalizeStorage({ storage: { dataSets: { x: {} } } })).toThrow(/needs "source"/);
    expect(() => normalizeStorage({ storage: { dataSets: { 'bad/id': { source: 'a.json' } } } })).toThrow(/dataset id/);
    // An id names its log file, and `__` names are GraphQL's (and __proto__ no object key).
    expect(() => normalizeStorage({ storage: { dataSets: { ['a'.repeat(129)]: { source: 'a.json' } } } })).toThrow(/dataset id/);
    expect(normalizeStorage({ storage: { dataSets: { ['a'.repeat(128)]: { source: 'a.json' } } } }).dataSets).toHaveProperty('a'.repeat(128));
    expect(() => normalizeStorage(JSON.parse('{"storage": {"dataSets": {"__proto__": {"source": "a.json"}}}}'))).toThrow(/dataset id/);
    // Names every object inherits are ids like any other, not ones "declared twice".
    expect(Object.keys(normalizeStorage({ storage: { dataSets: { constructor: { source: 'a.json' }, toString: { source: 'b.json' } } } }).dataSets)).toEqual(['constructor', 'toString']);
  });

  it('refuses a storage or legacy datasets of the wrong type, which read as no datasets at all', () => {
    for (const storage of [[{ dataSets: { x: { source: 'a.json' } } }], 'data/a.json', 42, true]) expect(() => normalizeStorage({ storage })).toThrow(/storage: must be an object holding dataSets and layers/);
    expect(() => normalizeStorage({ datasets: { x: { source: 'a.json' } } })).toThrow(/datasets: the legacy form is a list .* go in storage\.dataSets/);
    expect(() => normalizeStorage({ storage: { datasets: { x: { source: 'a.json' } } } })).toThrow(/storage\.datasets: the legacy form is a list/);
    // null, as the reference implementation reads it, is no storage.
    expect(normalizeStorage({ storage: null })).toEqual({ dataSets: {}, layers: [] });
    expect(normalizeStorage({ datasets: null })).toEqual({ dataSets: {}, layers: [] });
  });

  it('refuses a layer path that names no folder of the package, which read as an empty layer', () => {
    for (const [path, reason] of [['../../etc', '".." segment'], ['/etc', 'absolute path'], ['', 'empty name'], ['.', '"." segment'], ['a\\b', 'contains a backslash']]) {
      expect(() => normalizeStorage({ storage: { layers: [{ path }] } })).toThrow(`storage.layers[0].path: ${JSON.stringify(path)} is not a folder of the package (${reason}`);
    }
    expect(normalizeStorage({ storage: { layers: [{ path: 'layers/base/' }] } }).layers).toEqual([{ path: 'layers/base', writable: false, visibility: 'exported' }]);
  });

  it('refuses two layers with one path, however spelt, which the reactor stacked twice with contradicting flags', () => {
    const layers = [{ path: 'layers/a', writable: true }, { path: 'content' }, { path: 'layers/a/', writable: false, visibility: 'private' }];
    expect(() => normalizeStorage({ storage: { layers } })).toThrow(new ConfigValidationError('storage.json', ['storage.layers[2].path: "layers/a" is the path of storage.layers[0] too: a folder is one layer']));
    expect(normalizeStorage({ storage: { layers: [{ path: 'layers/a' }, { path: 'layers/ab' }, { path: 'layers/A' }, { path: 'contents' }] } }).layers).toHaveLength(4);
  });

  it('refuses a layer inside another, content/ among them, whose files were in both: a private one was a dependent\'s to see', () => {
    const refused = (layers: unknown[]) => () => normalizeStorage({ storage: { layers } });
    expect(refused([{ path: 'content/internal', visibility: 'private' }])).toThrow(new ConfigValidationError('storage.json', [`storage.layers[0].path: "content/internal" is inside content/, the package's own layer: its files would be in both, exported and served at two paths (give it a folder of its own)`]));
    expect(refused([{ path: 'content' }, { path: 'content/internal', visibility: 'private' }])).toThrow('storage.layers[1].path: "content/internal" is inside the folder of storage.layers[0] ("content"): its files would be in both layers');
    expect(refused([{ path: 'layers/a/b' }, { path: 'layers/a' }])).toThrow('storage.layers[1].path: "layers/a" holds the folder of storage.layers[0] ("layers/a/b"): its files would be in both layers');
  });
});

describe('authentication.json', () => {
  it('reads basicAuth and oauth2 and checks their types', () => {
    expect(normalizeAuthentication({ authentication: { basicAuth: { enabled: true, passwdFile: '.htpasswd', realm: 'R' } } })).toEqual({ basicAuth: { enabled: true, passwdFile: '.htpasswd', realm: 'R' } });
    expect(() => normalizeAuthentication({ authentication: { oauth2: { enabled: true, tokenUrl: 'not a url', scopes: 'x' } } })).toThrow(/tokenUrl.*scopes/);
    expect(() => normalizeAuthentication({ authentication: { basicAuth: { enabled: true, realm: 'Staff \u20ac' } } })).toThrow(/basicAuth\.realm: must be text an HTTP header can carry/);
    expect(normalizeAuthentication({ authentication: { basicAuth: { enabled: true, realm: 'Caf\u00e9 "staff"' } } }).basicAuth!.realm).toBe('Caf\u00e9 "staff"');
  });

  it('refuses a key SPEC.md does not list, at every level, with its path and a "did you mean" for a difference of case: misspelt, it would turn authentication off', () => {
    const refused = (raw: unknown) => (() => normalizeAuthentication(raw)) as () => unknown;
    expect(refused({ authentication: { basicauth: { enabled: true } } })).toThrow(new ConfigValidationError('authentication.json', ['authentication: unknown key "basicauth" (did you mean "basicAuth"?) (authentication takes basicAuth, oauth2)']));
    expect(refused({ authentication: { basicAuth: { enabled: true, passwdFile: 'h', Realm: 'r' } } })).toThrow(/authentication\.basicAuth: unknown key "Realm" \(did you mean "realm"\?\)/);
    expect(refused({ authentication: { oauth2: { enabled: false, scope: ['x'], clientSecret: 's' } } })).toThrow(/authentication\.oauth2: unknown keys "scope", "clientSecret"/);
    expect(refused({ authentification: { basicAuth: { enabled: true } } })).toThrow(new ConfigValidationError('authentication.json', ['unknown key "authentification" (the file takes authentication)', 'must be an object with an "authentication" key']));
    expect(refused({ authentication: {}, extra: 1 })).toThrow(/unknown key "extra"/);
    const deploy = (raw: unknown) => () => normalizeDeploy(raw, 'deploy.json');
    expect(deploy({ authentication: { sessionsecret: 'x'.repeat(20) } })).toThrow(new ConfigValidationError('deploy.json', ['authentication: unknown key "sessionsecret" (did you mean "sessionSecret"?) (authentication takes basicAuth, oauth2, sessionSecret, roles)']));
    expect(deploy({ authentification: {} })).toThrow(/^deploy\.json: unknown key "authentification"/);
    expect(deploy({ authentication: { basicAuth: { passwdfile: 'h' }, oauth2: { client_secret: 's' } } })).toThrow(/authentication\.basicAuth: unknown key "passwdfile".*authentication\.oauth2: unknown key "client_secret"/);
    expect(deploy({ baseURL: 'https://x' })).toThrow(/unknown key "baseURL" \(did you mean "baseUrl"\?\)/);
  });

  it('refuses an OAuth2 redirectPath no callback could reach, or that is the login, the logout or the mount\'s root', () => {
    const withCallback = (redirectPath: string) => () => normalizeAuthentication({ authentication: { oauth2: { enabled: true, provider: 'p', clientId: 'c', authorizationUrl: 'https://a', tokenUrl: 'https://t', userinfoUrl: 'https://u', redirectPath } } });
    const cases: Array<[string, RegExp]> = [
      ['/auth/login', /redirectPath: \/auth\/login is the mount's own login/],
      ['/auth/logout', /redirectPath: \/auth\/logout is the mount's own logout/],
      ['/', /redirectPath: the mount's root/],
      ['/auth/callback?from=idp', /redirectPath: a "\?" or "#", which ends the path of a URL, which no request can reach/],
      ['/cb#x', /redirectPath: a "\?" or "#"/],
      ['/a/../cb', /redirectPath: a "\.\." segment, which no request can reach/],
      ['//idp.example/cb', /redirectPath: an empty segment/],
      ['/caf%C3%A9', /redirectPath: a "%": requests are matched decoded/],
    ];
    for (const [path, message] of cases) expect(withCallback(path)).toThrow(message);
    for (const path of ['/auth/callback', '/oauth/done/', '/café/retour']) expect(withCallback(path)().oauth2!.redirectPath).toBe(path);
  });

  it('parses every URL of authentication.json and deploy.json as the reactor will, refusing at load what a request would fail on', () => {
    const oauth2 = (url: string) => ({ authentication: { oauth2: { enabled: true, provider: 'p', clientId: 'c', authorizationUrl: url, tokenUrl: 'https://t', userinfoUrl: 'https://u' } } });
    for (const bad of ['http://[', 'http://:0', 'https://', 'http:///x', 'http://a b', 'ftp://x']) {
      expect(() => normalizeAuthentication(oauth2(bad))).toThrow(new ConfigValidationError('authentication.json', ['authentication.oauth2.authorizationUrl: must be an http(s) URL']));
      expect(() => normalizeDeploy({ baseUrl: bad }, 'deploy.json')).toThrow(new ConfigValidationError('deploy.json', ['baseUrl: must be an http(s) URL']));
    }
    for (const good of ['https://sso.example.org/authorize?x=1', 'http://[::1]:8080', 'HTTP://127.0.0.1:1']) expect(normalizeAuthentication(oauth2(good)).oauth2!.authorizationUrl).toBe(good);
    for (const good of ['https://sso.example.org/app', 'http://[::1]:8080', 'HTTP://127.0.0.1:1']) expect(normalizeDeploy({ baseUrl: `${good}/` }, 'deploy.json').baseUrl).toBe(good);
  });

  it('refuses a deploy.json baseUrl with a query, a fragment or a user name: the redirect URI would be malformed', () => {
    const baseUrl = (url: string) => () => normalizeDeploy({ baseUrl: url }, 'deploy.json');
    for (const bad of ['https://x?a=1', 'https://x#f', 'https://x?', 'https://x/app#', 'https://sso.example.org/authorize?x=1/']) {
      expect(baseUrl(bad)).toThrow(new ConfigValidationError('deploy.json', ['baseUrl: must not carry a query or a fragment (the OAuth2 redirect URI is baseUrl followed by the callback path)']));
    }
    for (const bad of ['https://jo:pw@x', 'https://jo@x/app', 'HTTPS://@x']) expect(baseUrl(bad)).toThrow(new ConfigValidationError('deploy.json', ['baseUrl: must not carry a user name or password']));
    expect(baseUrl('https://x/a@b')().baseUrl).toBe('https://x/a@b');
  });
});

describe('JSON error positions', () => {
  it.each([
    ['{\n  "a": [\n}', 3, 1, '"}"'],
    ['{"a": 1,}', 1, 9, '"}"'],
    ['{"a": tru}', 1, 10, '"}"'],
    ['[1, 2', 1, 6, 'end of input'],
    ['{"a": "x\ny"}', 1, 9, '"\\n"'],
    ['{"a": 1} x', 1, 10, '"x"'],
    ['', 1, 1, 'end of input'],
    ['{"a": 01}', 1, 8, '"1"'],
  ])('locates the error in %j', (text, line, column, found) => {
    try {
      parseJson(text, 'f.json');
      throw new Error('parsed');
    } catch (error) {
      expect(error).toMatchObject({ line, column });
      expect((error as Error).message).toContain(found);
    }
  });
});

describe('alias-only route generation (serving)', () => {
  it('keeps exactly the generated routes a mirrored server does not already answer, with the same winners', () => {
    const files = ['content/index.html', 'content/a', 'content/a.html', 'content/docs/b.htm', 'content/docs/b.html', 'content/x.css'];
    const full = generateRoutes(files, ['items']).routes;
    const aliases = generateRoutes(files, ['items'], { aliasesOnly: true }).routes;
    const mirrored = new Set(files.map((f) => f.slice('content'.length)));
    const expected = full.routes.filter((route) => !(route.resource !== undefined && mirrored.has(route.path) && `content${route.path}` === route.resource));
    expect([...aliases.routes].sort((x, y) => x.path.localeCompare(y.path))).toEqual([...expected].sort((x, y) => x.path.localeCompare(y.path)));
    expect(aliases.index).toBe(full.index);
    expect(aliases.routes.find((r) => r.path === '/docs/b')?.resource).toBe('content/docs/b.htm');
    expect(aliases.routes.find((r) => r.path === '/a')).toBeUndefined();
  });
});
