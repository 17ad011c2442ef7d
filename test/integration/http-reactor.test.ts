import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { USE_CASE } from '../../src/composition/service-ids.js';
import { productionContainer, productionOpener } from '../support/production-container.js';
import { temporaryDirectory } from '../support/paths.js';
import { IntegrityError, MountConflictError } from '../../src/domain/errors.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { securityFor, startReactor } from '../support/reactor-fixture.js';

const metadata = (name: string) => JSON.stringify({ ...VALID_METADATA, name });
/** supertest body parser that keeps the raw bytes. */
const binary = (res: unknown, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  (res as NodeJS.ReadableStream).on('data', (c: Buffer) => chunks.push(c));
  (res as NodeJS.ReadableStream).on('end', () => done(null, Buffer.concat(chunks)));
};
const BIG = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);

const site = demoPackage({
  'content/page.html': '<p>page</p>',
  'content/big.bin': BIG,
  'content/hidden.txt': 'base version',
  'content/over.txt': 'base over',
  'layers/top/over.txt': 'top over',
  'layers/top/.pkg-tombstones': JSON.stringify(['hidden.txt']),
  'data/items.json': JSON.stringify([{ id: 'a' }, { id: 'b' }, { id: 'c' }]),
  'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } }, layers: [{ path: 'layers/top', writable: false, visibility: 'exported' }] } }),
  'routes.json': JSON.stringify({
    index: 'content/index.html',
    routes: [
      { path: '/', resource: 'content/index.html' },
      { path: '/old', resource: 'content/page.html', remap: '/new' },
      { path: '/rewritten', resource: 'content/page.html', responseRewrite: { body: 'replaced', headers: { 'X-Rewritten': 'yes' } } },
      { path: '/headers', resource: 'content/page.html', responseHeaders: { 'X-Frame-Options': 'DENY' }, headers: { 'Cache-Control': 'no-cache' }, requestHeaders: { 'X-Forwarded-For': 'reactor' } },
      { path: '/api/v1/data/items', dataset: 'items' },
    ],
  }),
});

let fixture: Awaited<ReturnType<typeof startReactor>>;
beforeAll(async () => {
  const opener = new MemoryOpener().add('site', site).add('manual', demoPackage({ 'metadata.json': metadata('manual'), 'content/index.html': '<p>manual home</p>' }));
  fixture = await startReactor(opener, [{ source: 'site' }, { source: 'manual' }], { registry: 'https://user:secret@registry.example.org/r?token=secret' });
});
afterAll(() => fixture.stop());

describe('static routes', () => {
  it('serves with type, cache header, length and a strong ETag from the SHA-256', async () => {
    const response = await request(fixture.http).get('/style.css').expect(200);
    expect(response.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(response.headers['cache-control']).toBe('public, max-age=31536000');
    expect(response.headers['etag']).toMatch(/^"[0-9a-f]{64}"$/);
    expect(response.text).toBe('body { color: black; }');
    await request(fixture.http).get('/style.css').set('If-None-Match', response.headers['etag']!).expect(304);
    await request(fixture.http).get('/style.css').set('If-None-Match', `W/${response.headers['etag']}, "other"`).expect(304);
  });

  it('serves / and extensionless HTML from routes, and files the routes do not list', async () => {
    expect((await request(fixture.http).get('/').expect(200)).text).toContain('<title>Demo</title>');
    await request(fixture.http).get('/docs/guide.html').expect(200);
    await request(fixture.http).get('/page.html').expect(200);
  });

  it('types a file without extension by its bytes when the manifest is generated', async () => {
    const opener = new MemoryOpener().add('plain', demoPackage({ 'content/LICENSE': 'plain text license', 'content/page': '<!doctype html><p>x</p>' }));
    const started = await startReactor(opener, [{ source: 'plain' }]);
    try {
      expect((await request(started.http).get('/LICENSE').expect(200)).headers['content-type']).toBe('text/plain; charset=utf-8');
      expect((await request(started.http).get('/page').expect(200)).headers['content-type']).toBe('text/html; charset=utf-8');
    } finally {
      await started.stop();
    }
  });

  it('answers HEAD without a body', async () => {
    const response = await request(fixture.http).head('/page.html').expect(200);
    expect(response.headers['content-length']).toBe('11');
    expect(response.text).toBeUndefined();
  });

  it('answers byte ranges with 206 and unsatisfiable ones with 416, from memory and from a stream', async () => {
    const small = await request(fixture.http).get('/page.html').set('Range', 'bytes=3-6').expect(206);
    expect(small.text).toBe('page');
    expect(small.headers['content-range']).toBe('bytes 3-6/11');
    const big = await request(fixture.http).get('/big.bin').set('Range', 'bytes=2000000-2000009').buffer(true).parse(binary).expect(206);
    expect(Buffer.from(big.body as Buffer).equals(Buffer.from(BIG.subarray(2000000, 2000010)))).toBe(true);
    await request(fixture.http).get('/page.html').set('Range', 'bytes=50-60').expect(416).expect('Content-Range', 'bytes */11');
    const whole = await request(fixture.http).get('/big.bin').buffer(true).parse(binary).expect(200);
    expect((whole.body as Buffer).length).toBe(BIG.length);
  });

  it('answers ranges of a large file from a directory and of one a .cap stores, and the whole of one a .cap deflates (a part would cost a full inflate)', async () => {
    const work = temporaryDirectory('cap-ranges-');
    try {
      const noise = randomBytes(3 * 1024 * 1024);
      const words = Buffer.from('range words '.repeat(300_000));
      const site = join(work.path, 'site');
      mkdirSync(join(site, 'content'), { recursive: true });
      writeFileSync(join(site, 'metadata.json'), JSON.stringify(VALID_METADATA));
      writeFileSync(join(site, 'content/noise.bin'), noise);
      writeFileSync(join(site, 'content/words.txt'), words);
      const { path: cap } = await productionContainer().get(USE_CASE.PackPackage).execute({ source: site, outputDirectory: work.path, force: false });
      for (const source of [cap, site]) {
        const started = await startReactor(productionOpener(), [{ source }]);
        try {
          const whole = await request(started.http).get('/words.txt').set('Range', 'bytes=-100').buffer(true).parse(binary);
          if (source === cap) {
            expect(whole.status).toBe(200);
            expect(whole.headers['accept-ranges']).toBe('none');
            expect(Buffer.from(whole.body as Buffer).equals(words)).toBe(true);
          } else expect(whole.status).toBe(206);
          for (const [file, bytes] of (source === cap ? [['/noise.bin', noise]] : [['/noise.bin', noise], ['/words.txt', words]]) as Array<[string, Buffer]>) {
            expect((await request(started.http).head(file)).headers['accept-ranges']).toBe('bytes');
            for (const [range, start, end] of [['bytes=0-9', 0, 9], ['bytes=2000000-2000099', 2_000_000, 2_000_099], ['bytes=-100', bytes.length - 100, bytes.length - 1], [`bytes=${bytes.length - 5}-`, bytes.length - 5, bytes.length - 1]] as const) {
              const answer = await request(started.http).get(file).set('Range', range).buffer(true).parse(binary).expect(206);
              expect(answer.headers['content-range']).toBe(`bytes ${start}-${end}/${bytes.length}`);
              expect(Buffer.from(answer.body as Buffer).equals(bytes.subarray(start, end + 1))).toBe(true);
            }
          }
        } finally {
          await started.stop();
        }
      }
    } finally {
      work.remove();
    }
  });

  it('applies remap, responseRewrite, responseHeaders and headers', async () => {
    await request(fixture.http).get('/old').expect(404);
    expect((await request(fixture.http).get('/new').expect(200)).text).toBe('<p>page</p>');
    const rewritten = await request(fixture.http).get('/rewritten').expect(200).expect('X-Rewritten', 'yes');
    expect(rewritten.text).toBe('replaced');
    const headers = await request(fixture.http).get('/headers').expect(200);
    expect(headers.headers['x-frame-options']).toBe('DENY');
    expect(headers.headers['cache-control']).toBe('no-cache');
  });

  it('keeps to a route\'s Accept-Ranges: none (whole answers to a Range), and sends the Accept-Ranges it keeps to, whatever a route says', async () => {
    const routes = {
      routes: [
        { path: '/whole', resource: 'content/page.html', responseHeaders: { 'accept-ranges': 'None' } },
        { path: '/claimed', resource: 'content/big.bin', responseRewrite: { headers: { 'Accept-Ranges': 'bytes' } } },
      ],
    };
    const pkg = demoPackage({ 'content/page.html': '<p>page</p>', 'content/big.bin': BIG, 'routes.json': JSON.stringify(routes) });
    const own = await startReactor(new MemoryOpener().add('ranges', pkg), [{ source: 'ranges' }]);
    try {
      const whole = await request(own.http).get('/whole').set('Range', 'bytes=0-2').expect(200);
      expect([whole.text, whole.headers['accept-ranges'], whole.headers['content-range']]).toEqual(['<p>page</p>', 'none', undefined]);
      expect((await request(own.http).get('/page.html').set('Range', 'bytes=0-2').expect(206)).text).toBe('<p>');
      expect((await request(own.http).get('/claimed').set('Range', 'bytes=0-2').expect(206)).headers['accept-ranges']).toBe('bytes');
    } finally {
      await own.stop();
    }
  });

  it('resolves layers top down with tombstones', async () => {
    expect((await request(fixture.http).get('/over.txt').expect(200)).text).toBe('top over');
    await request(fixture.http).get('/hidden.txt').expect(404);
    await request(fixture.http).get('/.pkg-tombstones').expect(404);
  });

  it('answers 404 and 405 with the JSON error body', async () => {
    const missing = await request(fixture.http).get('/nothing-here').expect(404);
    expect(missing.body).toEqual({ error: { code: 'NOT_FOUND', message: 'no route or file for /nothing-here' } });
    // A miss is not remembered: clients choose those paths, so keeping them would grow without bound.
    expect(fixture.reactor.mounts.match('/nothing-here')!.mount.pkg.cached('/nothing-here')).toBeUndefined();
    expect(fixture.reactor.mounts.match('/style.css')!.mount.pkg.cached('/style.css')?.kind).toBe('hit');
    const wrong = await request(fixture.http).post('/page.html').expect(405);
    expect(wrong.headers['allow']).toBe('GET, HEAD, PUT, DELETE');
    expect(wrong.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it.each(['/../metadata.json', '/%2e%2e/metadata.json', '/..%2fmetadata.json', '/a/..%5c..%5cmetadata.json', '/%00', '/..\\metadata.json'])('never lets %s reach a file outside content', async (path) => {
    const response = await request(fixture.http).get(path);
    expect([400, 404]).toContain(response.status);
    expect(response.text).not.toContain('demo-site');
  });

  it('refuses an overlong URL cleanly', async () => {
    expect((await request(fixture.http).get('/' + 'a'.repeat(5000))).status).toBe(414);
  });
});

describe('datasets', () => {
  it('answers the collection with X-Total-Count, and pages with limit and offset', async () => {
    const all = await request(fixture.http).get('/api/v1/data/items').expect(200);
    expect(all.body).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    expect(all.headers['x-total-count']).toBe('3');
    expect((await request(fixture.http).get('/api/v1/data/items?offset=1&limit=1').expect(200)).body).toEqual([{ id: 'b' }]);
    await request(fixture.http).get('/api/v1/data/items?limit=x').expect(400);
    await request(fixture.http).get('/api/v1/data/unknown').expect(404);
  });
});

describe('mounts', () => {
  it('mounts the first source at / and the next at /<name>/', async () => {
    expect((await request(fixture.http).get('/manual/').expect(200)).text).toBe('<p>manual home</p>');
    expect((await request(fixture.http).get('/manual/index.html').expect(200)).text).toBe('<p>manual home</p>');
    // Its root without the slash is sent to it, so the index's relative links resolve below the mount.
    expect((await request(fixture.http).get('/manual').redirects(0).expect(301)).headers.location).toBe('/manual/');
  });

  it('warns at start of a route the reactor answers itself, at the root mount and at any mount, and of one no identity can pass', async () => {
    const routes = { routes: [{ path: '/healthz', resource: 'content/index.html' }, { path: '/api/v1/data/items', resource: 'content/index.html' }, { path: '/team', resource: 'content/style.css', accessControl: {} }] };
    const shadowing = (name: string) => demoPackage({ 'metadata.json': metadata(name), 'routes.json': JSON.stringify(routes) });
    const own = await startReactor(new MemoryOpener().add('a', shadowing('a')).add('b', shadowing('b')), [{ source: 'a' }, { source: 'b' }]);
    try {
      expect(own.warnings.filter((warning) => warning.includes('/team'))).toEqual([
        'a: routes /team need an identity, but the package enables no authentication (basicAuth or oauth2 in authentication.json): they answer 401 to every request',
        'b: routes /team need an identity, but the package enables no authentication (basicAuth or oauth2 in authentication.json): they answer 401 to every request',
      ]);
      expect(own.warnings.filter((warning) => warning.includes('itself'))).toEqual([
        'a: route "/healthz" is never served: the reactor answers that path itself (its health probe, where the package is mounted at /)',
        'a: route "/api/v1/data/items" is never served: the reactor answers that path itself (the data API of dataset items)',
        'b: route "/api/v1/data/items" is never served: the reactor answers that path itself (the data API of dataset items)',
      ]);
      expect((await request(own.http).get('/b/healthz').expect(200)).text).toContain('<title>Demo</title>');
    } finally {
      await own.stop();
    }
  });

  it('warns at start of a mount that takes the data API, its description or GraphQL of a package mounted above it (a package named api hid the root\'s data API without a word)', async () => {
    const withData = (name: string) => demoPackage({ 'metadata.json': metadata(name), 'data/notes.json': '[{"id":"n"}]', 'storage.json': JSON.stringify({ storage: { dataSets: { notes: { source: 'data/notes.json' } } } }) });
    const opener = new MemoryOpener().add('site', withData('site')).add('api', withData('api')).add('docs', withData('docs')).add('gql', withData('gql')).add('plain', demoPackage({ 'metadata.json': metadata('plain') }));
    const own = await startReactor(opener, [{ source: 'site' }, { source: 'api' }, { source: 'docs' }, { source: 'gql', prefix: '/docs/graphql' }, { source: 'plain', prefix: '/plain/api/v1' }]);
    try {
      expect(own.warnings.filter((warning) => warning.includes('takes every request below it'))).toEqual([
        'the mount at /api/ (api (api)) takes every request below it: the data API (/api/v1/data/), OpenAPI description (/api/v1/openapi.json), API page (/api/v1/) of site (site) at / answer 404; mount one of them at another path (--mount PATH=SOURCE)',
        'the mount at /docs/graphql/ (gql (gql)) takes every request below it: the GraphQL (/docs/graphql) of docs (docs) at /docs/ answer 404; mount one of them at another path (--mount PATH=SOURCE)',
      ]);
      expect((await request(own.http).get('/api/v1/data/notes')).status).toBe(404);
    } finally {
      await own.stop();
    }
  });

  it('warns at start of a mount whose path without its slash the reactor answers itself (a package named healthz lost its redirect without a word)', async () => {
    const named = (name: string) => demoPackage({ 'metadata.json': metadata(name) });
    const opener = new MemoryOpener().add('site', named('site')).add('healthz', named('healthz')).add('metrics', named('metrics')).add('status', named('status')).add('docs', named('docs'));
    const own = await startReactor(opener, [{ source: 'site' }, { source: 'healthz' }, { source: 'metrics' }, { source: 'status', prefix: '/introspect/status' }, { source: 'docs', prefix: '/__pkg/api-docs' }]);
    try {
      expect(own.warnings.filter((warning) => warning.includes('the reactor answers'))).toEqual([
        'the reactor answers /healthz itself (its health probe): the mount at /healthz/ (healthz (healthz)) is reached only with its trailing slash, /healthz does not redirect there; mount it at another path (--mount PATH=SOURCE)',
        'the reactor answers /metrics itself (its metrics): the mount at /metrics/ (metrics (metrics)) is reached only with its trailing slash, /metrics does not redirect there; mount it at another path (--mount PATH=SOURCE)',
        'the reactor answers /introspect/status itself (introspection): the mount at /introspect/status/ (status (status)) is reached only with its trailing slash, /introspect/status does not redirect there; mount it at another path (--mount PATH=SOURCE)',
        'the reactor answers every path below /__pkg/api-docs/ itself (its bundled assets): the mount there (docs (docs)) is never reached; mount it at another path (--mount PATH=SOURCE)',
      ]);
      expect((await request(own.http).get('/healthz').expect(200)).text).toBe('ok\n');
      expect((await request(own.http).get('/healthz/').expect(200)).text).toContain('<title>Demo</title>');
    } finally {
      await own.stop();
    }
  });

  it('refuses two mounts on one prefix', async () => {
    const opener = new MemoryOpener().add('a', demoPackage()).add('b', demoPackage());
    await expect(startReactor(opener, [{ source: 'a', prefix: '/x' }, { source: 'b', prefix: '/x/' }])).rejects.toBeInstanceOf(MountConflictError);
  });
});

describe('integrity on load', () => {
  it('refuses a package whose files do not match security.json, naming them', async () => {
    const files = demoPackage();
    const tampered = { ...files, 'security.json': securityFor(files), 'content/style.css': 'tampered', 'content/extra.js': 'x' };
    const opener = new MemoryOpener().add('bad', tampered);
    await expect(startReactor(opener, [{ source: 'bad' }])).rejects.toThrow(IntegrityError);
    await expect(startReactor(opener, [{ source: 'bad' }])).rejects.toThrow(/bad failed its integrity check: checksum mismatch: content\/style\.css; file not covered by checksums: content\/extra\.js/);
  });

  it('serves the other mounts when one fails, and reports it', async () => {
    const files = demoPackage();
    const opener = new MemoryOpener().add('good', files).add('bad', { ...files, 'metadata.json': metadata('bad'), 'security.json': securityFor(files) });
    const started = await startReactor(opener, [{ source: 'good' }, { source: 'bad' }]);
    expect(started.failures.map((f) => f.source)).toEqual(['bad']);
    expect(started.reactor.all()).toHaveLength(1);
    await started.stop();
  });
});

describe('introspection', () => {
  it('reports metadata, routes, content hashes and validity for every mount', async () => {
    expect((await request(fixture.http).get('/api/v1/introspect/metadata').expect(200)).body.packages.map((p: { name: string }) => p.name)).toEqual(['demo-site', 'manual']);
    const routes = (await request(fixture.http).get('/api/v1/introspect/routes').expect(200)).body.routes;
    expect(routes[0].package).toBe('demo-site');
    expect(routes[0].routes).toEqual(expect.arrayContaining([{ method: 'GET', path: '/' }, { method: 'GET', path: '/headers', requestHeaders: { 'X-Forwarded-For': 'reactor' } }]));
    expect(routes[1].routes).toEqual(expect.arrayContaining([{ method: 'GET', path: '/manual/index.html' }]));
    const hashes = (await request(fixture.http).get('/api/v1/introspect/content-hashes').expect(200)).body.contentHashes;
    expect(hashes).toHaveLength(2);
    for (const { hash } of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const validity = (await request(fixture.http).get('/api/v1/introspect/content-validity').expect(200)).body.contentValidity;
    expect(validity[0]).toMatchObject({ package: 'demo-site', valid: true, signed: false, encrypted: false });
    expect(Date.parse(validity[0].lastChecked)).not.toBeNaN();
  });

  it('reports status, config (with credentials redacted) and metrics', async () => {
    expect((await request(fixture.http).get('/introspect/status').expect(200)).body).toMatchObject({ status: 'running', packagesLoaded: 2 });
    const config = (await request(fixture.http).get('/introspect/config').expect(200)).body;
    expect(config).toEqual({ port: 0, storeDir: '/tmp/unused/store', cacheControl: 'public, max-age=31536000', authEnabled: false, registry: 'https://***@registry.example.org/r?token=***' });
    expect(JSON.stringify(config)).not.toContain('secret');
    const metrics = (await request(fixture.http).get('/introspect/metrics').expect(200)).body;
    expect(metrics.requestsTotal).toBeGreaterThan(0);
    expect(metrics.requestsByStatus['200']).toBeGreaterThan(0);
  });

  it('reports the port it bound when asked for any free one (--port 0)', async () => {
    const started = await startReactor(new MemoryOpener().add('site', site), [{ source: 'site' }]);
    try {
      const { port } = await started.server.listen(0, '127.0.0.1');
      expect(port).toBeGreaterThan(0);
      const config = (await (await fetch(`http://127.0.0.1:${port}/introspect/config`)).json()) as { port: number };
      expect(config.port).toBe(port);
    } finally {
      await started.stop();
    }
  });

  it('answers per package, by name, and 404 for unknown names', async () => {
    expect((await request(fixture.http).get('/package/manual/status').expect(200)).body).toEqual({ package: 'manual', version: '1.2.3', status: 'loaded', valid: true });
    expect((await request(fixture.http).get('/package/demo-site/metadata').expect(200)).body).toEqual({ name: 'demo-site', version: '1.2.3', description: 'A demo', author: null, guid: 'pkg://example.org/demo-site' });
    await request(fixture.http).get('/package/nope/status').expect(404);
    const logs = (await request(fixture.http).get('/package/manual/logs?lines=2').expect(200)).body;
    expect(logs.package).toBe('manual');
    expect(logs.logs).toHaveLength(2);
    expect(logs.logs[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z [A-Z]+ \/\S* -> \d{3}$/);
    expect(fixture.lines.length).toBeGreaterThan(0);
  });

  it('refuses a logs count it cannot read as one: 0, -1, 1.5 and an empty value were read as 1 line', async () => {
    for (const lines of ['0', '-1', '1.5', '', 'abc', '1&lines=2']) {
      const refused = await request(fixture.http).get(`/package/manual/logs?lines=${lines}`);
      expect([lines, refused.status, refused.body.error.code]).toEqual([lines, 400, 'BAD_QUERY']);
    }
    expect((await request(fixture.http).get('/package/manual/logs?lines=5000').expect(200)).body.logs.length).toBeLessThanOrEqual(1000);
  });

  it.each(['/introspect/status', '/api/v1/introspect/metadata', '/package/manual/logs', '/healthz', '/readyz', '/metrics'])('answers 405 to a POST on %s', async (path) => {
    const response = await request(fixture.http).post(path).expect(405);
    expect(response.headers['allow']).toBe('GET, HEAD');
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect((await request(fixture.http).delete(path).expect(405)).headers['allow']).toBe('GET, HEAD');
  });
});

describe('content validity is re-verified on every request', () => {
  it('notices a file changed on disk after load, and status reports it', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { productionOpener } = await import('../support/production-container.js');
    const { temporaryDirectory } = await import('../support/paths.js');
    const dir = temporaryDirectory();
    try {
      const files = demoPackage();
      for (const [path, bytes] of Object.entries({ ...files, 'security.json': securityFor(files) })) {
        mkdirSync(join(dir.path, path, '..'), { recursive: true });
        writeFileSync(join(dir.path, path), bytes);
      }
      const started = await startReactor(productionOpener(), [{ source: dir.path }]);
      try {
        const before = (await request(started.http).get('/api/v1/introspect/content-validity').expect(200)).body.contentValidity[0];
        expect(before).toMatchObject({ valid: true });
        expect(before.reason).toBeUndefined();
        writeFileSync(join(dir.path, 'content/style.css'), 'changed after load');
        const [first, second] = await Promise.all([
          request(started.http).get('/api/v1/introspect/content-validity'),
          request(started.http).get('/api/v1/introspect/content-validity'),
        ]);
        expect(first.body.contentValidity[0]).toMatchObject({ valid: false, reason: ['checksum mismatch: content/style.css'] });
        expect(second.body.contentValidity[0].lastChecked).toBe(first.body.contentValidity[0].lastChecked);
        expect((await request(started.http).get('/package/demo-site/status').expect(200)).body.valid).toBe(false);
      } finally {
        await started.stop();
      }
    } finally {
      dir.remove();
    }
  });
});
