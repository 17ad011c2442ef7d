import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { productionOpener } from '../support/production-container.js';
import { startListening, writeCap } from '../support/listening-reactor.js';
import { exchangeOnSocket } from '../support/raw-http.js';
import { watchUnexpectedErrors } from '../support/unexpected-errors.js';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-request-fuzz-');
let fixture: Awaited<ReturnType<typeof startListening>>;
let watch: ReturnType<typeof watchUnexpectedErrors>;

/** Beside the example site: a package behind basic auth with roles on its routes, and a lazily verified `.cap` with a dataset and a CORS origin. */
async function writeFixtures(): Promise<{ staff: string; cap: string; deploy: string }> {
  const staff = join(work.path, 'staff');
  const files = demoPackage({
    'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'staff' }),
    'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, realm: 'Staff' } } }),
    'content/admin.html': '<p>admin</p>',
    'data/items.json': JSON.stringify([{ id: 'a', n: 1 }]),
    'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
    'routes.json': JSON.stringify({
      routes: [
        { path: '/', resource: 'content/index.html' },
        { path: '/admin.html', resource: 'content/admin.html', accessControl: { roles: ['admin'] } },
        { path: '/api/v1/data/items', dataset: 'items', accessControl: { roles: ['editor'] } },
      ],
    }),
  });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(staff, path)), { recursive: true });
    writeFileSync(join(staff, path), text);
  }
  const sha = (password: string) => `{SHA}${createHash('sha1').update(password).digest('base64')}`;
  writeFileSync(join(work.path, 'htpasswd'), `alice:${sha('alice-pw')}\nbob:${sha('bob-pw')}\n`);
  const deploy = join(work.path, 'deploy.json');
  writeFileSync(deploy, JSON.stringify({ authentication: { basicAuth: { passwdFile: 'htpasswd' }, sessionSecret: 'fuzz-session-secret-0123456789', roles: { alice: ['admin', 'editor'], bob: ['editor'] } } }));
  const cap = await writeCap(work.path, 'capped.cap', demoPackage({
    'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'capped' }),
    'content/big.css': `body { color: black; }\n${'p { margin: 0 }\n'.repeat(400)}`,
    'data/notes.json': JSON.stringify([{ id: 'n1', text: 'x' }]),
    'storage.json': JSON.stringify({ storage: { dataSets: { notes: { source: 'data/notes.json' } } } }),
  }), ['content/index.html']);
  return { staff, cap, deploy };
}

beforeAll(async () => {
  const { staff, cap, deploy } = await writeFixtures();
  fixture = await startListening(
    productionOpener(),
    [{ source: EXAMPLE_SITE }, { source: staff, prefix: '/staff' }, { source: cap, prefix: '/cap', verify: 'lazy', cors: ['https://app.example'] }],
    { workdir: work.path, deploy },
  );
  // The faults this file plants are said where the test checks them, not in its output.
  watch = watchUnexpectedErrors('a fault nobody foresaw');
});
afterAll(async () => {
  watch.stop();
  await fixture.stop();
  work.remove();
});

/** One exchange on a fresh connection (see exchangeOnSocket). */
const exchange = (bytes: Buffer) => exchangeOnSocket(fixture.base, bytes);

const SEGMENTS = [
  '', '.', '..', '%2e%2e', '%2F', '%00', '%ff', '%', '%zz', '%c3%a9', 'é', '~', 'api', 'v1', 'data', 'articles', 'hello-world', 'layers', 'graphql', 'graphiql',
  'package', 'example-site', 'save', 'logs', 'auth', 'login', 'logout', 'callback', 'introspect', 'metrics', 'routes', 'config', 'content-validity', 'healthz', 'readyz',
  'index.html', 'about', 'css', 'style.css', 'docs', 'api-docs', 'openapi.json', 'content', '__proto__', 'constructor', '.pkg-tombstones', 'x'.repeat(300),
  'staff', 'staff', 'admin.html', 'items', 'a', 'cap', 'cap', 'big.css', 'notes', 'n1', 'capped', 'guide.html', '__pkg',
];
const token = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_.'.split('')), minLength: 1, maxLength: 8 });
const wild = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 12 });
const segment = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...SEGMENTS) }, token, wild.map(encodeURIComponent));
const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom('limit', 'offset', 'sort', 'q', 'at', 'title', 'title_like', 'tags', 'id_ne', '_page', '__proto__', 'query', 'variables', 'count'), token), fc.oneof(fc.constantFrom('', '1', '-1', '1e999', 'NaN', '-title', 'title,-id', '{}', '{ articles { id } }', '2026-01-01T00:00:00Z', '%', '%00'), wild)), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${key}=${value.replace(/[#\s]/g, '')}`).join('&')}`));
const target = fc.tuple(fc.constantFrom('', '', '/staff', '/cap'), fc.array(segment, { minLength: 1, maxLength: 6 }), query).map(([mount, parts, search]) => `${mount}/${parts.join('/')}${search}`.replace(/[\s#]/g, ''));
const method = fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'POST', 'PUT', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'BREW');
const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc.record({ id: fc.oneof(token, fc.constant('hello-world'), fc.constant('__proto__')), title: wild, body: wild }).map((value) => JSON.stringify(value)),
  fc.record({ query: fc.constantFrom('{ articles { id title } }', 'mutation { createArticles(item: {id: "x", title: "t", body: "b"}) { id } }', '{ __schema { types { name } } }', '{', 'query q($a: Int) { articles(limit: $a) { id } }'), variables: fc.jsonValue({ maxDepth: 2 }) }).map((value) => JSON.stringify(value)),
  wild,
  fc.constant(''),
);
const header = fc.oneof(
  fc.tuple(fc.constant('Range'), fc.oneof(fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=5-', 'bytes=0-1,2-3', 'bytes=99999999-', 'bytes=1-0', 'bytes=', 'lines=1-2'), wild)),
  fc.tuple(fc.constantFrom('If-None-Match', 'If-Match', 'If-Modified-Since', 'If-Range'), fc.oneof(fc.constantFrom('*', '"x"', 'W/"x"', '"a", "b"'), wild)),
  fc.tuple(fc.constant('Accept-Encoding'), fc.oneof(fc.constantFrom('gzip', 'br', 'gzip;q=0', '*', 'identity;q=0, *;q=0', 'br;q=1e9, gzip;q=-1'), wild)),
  fc.tuple(fc.constant('Content-Type'), fc.constantFrom('application/json', 'application/json; charset=latin1', 'text/html', 'application/merge-patch+json', 'application/graphql', 'multipart/form-data', '')),
  fc.tuple(fc.constantFrom('Origin', 'Referer'), fc.oneof(fc.constantFrom('null', 'http://127.0.0.1', 'https://evil.example', 'http://localhost:1', 'https://app.example'), wild)),
  fc.tuple(fc.constant('Sec-Fetch-Site'), fc.constantFrom('same-origin', 'cross-site', 'none', 'x')),
  fc.tuple(fc.constant('Cookie'), fc.oneof(fc.constantFrom('pkg_session=s%3Aabc.def', 'pkg_session=', 'pkg_oauth_state=x; pkg_session=y', 'a=b; a=c'), wild)),
  fc.tuple(fc.constant('Authorization'), fc.oneof(fc.constantFrom('Basic', 'Basic !!!', 'Basic YWxpY2U6', 'Bearer x', 'Basic ' + Buffer.from('a:b:c').toString('base64'), 'Basic ' + Buffer.from('alice:alice-pw').toString('base64'), 'Basic ' + Buffer.from('bob:bob-pw').toString('base64'), 'Basic ' + Buffer.from('alice:wrong').toString('base64')), wild)),
  fc.tuple(fc.constant('Accept'), fc.constantFrom('text/html', 'application/json', '*/*', 'text/event-stream')),
  fc.tuple(fc.constant('Host'), fc.constantFrom('127.0.0.1', 'localhost', 'evil.example', '[::1]:1', '', 'a b')),
  fc.tuple(fc.constant('X-Forwarded-For'), wild),
);
const request = fc.record({ method, target, headers: fc.array(header, { maxLength: 4 }), body: jsonBody });

describe('requests from strangers, on the wire', () => {
  // First: the file it asks for is not cached yet, so its answer waits on a lookup.
  it('a fault in an answer that waits on a lookup is that request\'s 500, not a rejection nobody hears', async () => {
    const server = fixture.server as unknown as { write: (...args: unknown[]) => void };
    const write = server.write.bind(server);
    server.write = () => {
      throw new TypeError('a fault nobody foresaw, after a lookup');
    };
    try {
      expect(await exchange(Buffer.from('GET /js/app.js HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))).toMatch(/^HTTP\/1\.1 500 Internal Server Error\r\n[\s\S]*"code":"INTERNAL"/);
    } finally {
      server.write = write;
      watch.unexpected.splice(0);
    }
    expect(await exchange(Buffer.from('GET /js/app.js HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('are answered with a status other than 500, each in one well-formed answer, and nothing reaches stderr as unexpected', async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ method, target, headers, body }) => {
        const head = [`${method} ${target} HTTP/1.1`, ...(headers.some(([name]) => name === 'Host') ? [] : ['Host: 127.0.0.1']), ...headers.map(([name, value]) => `${name}: ${value}`), `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
        const answer = await exchange(Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`));
        const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
        expect({ request: head[0], answered: status !== null }).toEqual({ request: head[0], answered: true });
        expect({ request: head, status: Number(status![1]) }).not.toEqual({ request: head, status: 500 });
        expect(watch.unexpected).toEqual([]);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 3000) },
    );
    // Still serving (what it serves may have been deleted by now: writes are among the requests).
    expect(await exchange(Buffer.from('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))).toMatch(/^HTTP\/1\.1 200 /);
  });

  it.each([
    ['a byte outside ASCII in the target', 'GET /\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'BAD_REQUEST'],
    ['Content-Length with Transfer-Encoding', 'POST /api/v1/data/items HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'BAD_REQUEST'],
    ['a method HTTP does not define', 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'BAD_REQUEST'],
    ['a path of 20,000 characters', `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, 'BAD_PATH'],
    ['a header of 20,000 characters', `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
  ])("answers what node's parser refuses (%s) with the JSON error body", async (_what, bytes, status, code) => {
    const answer = await exchange(Buffer.from(bytes, 'latin1'));
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [^\\r]*\\r\\nContent-Type: application/json; charset=utf-8\\r\\n[\\s\\S]*\\r\\n\\r\\n\\{"error":\\{"code":"${code}","message":"[^"]+"\\}\\}$`));
    expect(await exchange(Buffer.from('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('a part of the reactor gone from disk (reinstalled under it) is a 503 that says to restart, not a 500', async () => {
    const resolver = (fixture.server as unknown as { resolver: { resolve: (method: string, path: string) => unknown } }).resolver;
    const resolve = resolver.resolve.bind(resolver);
    resolver.resolve = () => {
      throw Object.assign(new Error("Cannot find module '/opt/pkg/dist/chunks/graphql-endpoint-ABC.js'"), { code: 'ERR_MODULE_NOT_FOUND' });
    };
    try {
      const answer = await exchange(Buffer.from('GET /about HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answer).toMatch(/^HTTP\/1\.1 503 [\s\S]*\{"error":\{"code":"RESTART_REQUIRED","message":"[^"]*restarted"\}\}$/);
      expect(answer).not.toContain('/opt/pkg');
    } finally {
      resolver.resolve = resolve;
    }
    expect(await exchange(Buffer.from('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('a fault in answering one request is its 500, and the next request is answered', async () => {
    const resolver = (fixture.server as unknown as { resolver: { resolve: (method: string, path: string) => unknown } }).resolver;
    const resolve = resolver.resolve.bind(resolver);
    resolver.resolve = () => {
      throw new TypeError('a fault nobody foresaw');
    };
    try {
      const answer = await exchange(Buffer.from('GET /about HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answer).toMatch(/^HTTP\/1\.1 500 [\s\S]*\{"error":\{"code":"INTERNAL","message":"internal error"\}\}$/);
    } finally {
      resolver.resolve = resolve;
      watch.unexpected.splice(0);
    }
    expect(await exchange(Buffer.from('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))).toMatch(/^HTTP\/1\.1 200 /);
  });
});
