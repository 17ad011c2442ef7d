import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { gzipSync } from 'node:zlib';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { PORT, USE_CASE } from '../../src/composition/service-ids.js';
import { productionContainer, productionOpener, swap } from '../support/production-container.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { MemoryOverlayStore } from '../fakes/memory-overlay-store.js';
import { startReactor } from '../support/reactor-fixture.js';
import { temporaryDirectory } from '../support/paths.js';
import { doublingSchema } from '../support/doubling-schema.js';
import { SavePackage, type SaveRequest } from '../../src/application/use-cases/save-package.js';
import { pageLinks } from '../../src/adapters/http/data-api.js';

const schema = {
  type: 'object',
  required: ['title'],
  properties: { id: { type: 'string' }, title: { type: 'string', minLength: 1 }, views: { type: 'integer', minimum: 0 } },
};
const site = demoPackage({
  'content/about.html': '<p>about</p>',
  'data/posts.json': JSON.stringify([
    { id: 'first', title: 'First' },
    { id: 'second', title: 'Second' },
  ]),
  'data/posts.schema.json': JSON.stringify(schema),
  'data/notes.yaml': '- id: n1\n  text: yaml note\n',
  'data/settings.json': JSON.stringify({ theme: 'dark' }),
  'storage.json': JSON.stringify({
    storage: {
      dataSets: {
        posts: { source: 'data/posts.json', schemaFile: 'data/posts.schema.json', schemaType: 'json-schema' },
        notes: { source: 'data/notes.yaml' },
        settings: { source: 'data/settings.json' },
      },
    },
  }),
});
const readOnly = demoPackage({
  'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'frozen', readOnly: true }),
  'data/posts.json': JSON.stringify([{ id: 'only', title: 'Only' }]),
  'storage.json': JSON.stringify({ storage: { dataSets: { posts: { source: 'data/posts.json' } } } }),
});

const work = temporaryDirectory('cap-data-api-');
const overlays = new MemoryOverlayStore();
let fixture: Awaited<ReturnType<typeof startReactor>>;
let http: ReturnType<typeof request>;

/** `value` as JSON, gzipped, and sent as those bytes (superagent would write a Buffer as JSON). */
const gzipped = (test: request.Test, value: unknown) => test.set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').serialize((bytes: unknown) => bytes as string).send(gzipSync(JSON.stringify(value)) as unknown as string);
beforeAll(async () => {
  fixture = await startReactor(new MemoryOpener().add('site', site).add('frozen', readOnly), [{ source: 'site' }, { source: 'frozen' }], { workdir: work.path, bodyLimit: 4096 }, swap(PORT.OverlayStore, overlays));
  http = request(fixture.http);
});
afterAll(async () => {
  await fixture.stop();
  work.remove();
});

describe('dataset REST API', () => {
  it('GET collection: the merged items, X-Total-Count, optional limit and offset', async () => {
    const all = await http.get('/api/v1/data/posts').expect(200).expect('Content-Type', /application\/json/);
    expect(all.body.map((p: { id: string }) => p.id)).toEqual(['first', 'second']);
    expect(all.headers['x-total-count']).toBe('2');
    const page = await http.get('/api/v1/data/posts?limit=1&offset=1').expect(200);
    expect(page.body).toEqual([{ id: 'second', title: 'Second' }]);
    expect(page.headers['x-total-count']).toBe('2');
    await http.get('/api/v1/data/posts?limit=-1').expect(400);
    await http.head('/api/v1/data/posts').expect(200);
  });

  it('Link: last is the last window of the walk the client is on, never before next', async () => {
    const shifted = await http.get('/api/v1/data/posts?limit=2&offset=1').expect(200);
    expect(shifted.body.map((p: { id: string }) => p.id)).toEqual(['second']);
    expect(shifted.headers.link).toBe('</api/v1/data/posts?limit=2&offset=0>; rel="first", </api/v1/data/posts?limit=2&offset=0>; rel="prev", </api/v1/data/posts?limit=2&offset=1>; rel="last"');
    const links = (offset: number, limit: number | undefined, total: number) => pageLinks('/c', new URLSearchParams(), { offset, limit }, total);
    expect(links(1, 4, 6)).toBe('</c?offset=0>; rel="first", </c?offset=0>; rel="prev", </c?offset=5>; rel="next", </c?offset=5>; rel="last"');
    expect(links(3, undefined, 6)).toBe('</c?offset=0>; rel="first", </c?offset=0>; rel="prev", </c?offset=3>; rel="last"');
    expect(links(4, 2, 6)).toBe('</c?offset=0>; rel="first", </c?offset=2>; rel="prev", </c?offset=4>; rel="last"');
    expect(links(100, 2, 6)).toContain('</c?offset=4>; rel="last"');
    expect(pageLinks('/c/a>;rel="x"/history', new URLSearchParams(), { offset: 0, limit: 1 }, 1)).toBe('</c/a%3E;rel=%22x%22/history?offset=0>; rel="first", </c/a%3E;rel=%22x%22/history?offset=0>; rel="last"');
  });

  it('POST: 201, Location, the stored item; then GET, PUT and DELETE by id', async () => {
    const created = await http.post('/api/v1/data/posts').send({ id: 'third', title: 'Third' }).expect(201);
    expect(created.headers.location).toBe('/api/v1/data/posts/third');
    expect(created.body).toEqual({ id: 'third', title: 'Third' });
    await http.get('/api/v1/data/posts/third').expect(200, { id: 'third', title: 'Third' });
    await http.put('/api/v1/data/posts/third').send({ title: 'Third, edited', views: 3 }).expect(200, { id: 'third', title: 'Third, edited', views: 3 });
    const list = await http.get('/api/v1/data/posts').expect(200);
    expect(list.body.at(-1)).toEqual({ id: 'third', title: 'Third, edited', views: 3 });
    await http.delete('/api/v1/data/posts/third').expect(204);
    await http.get('/api/v1/data/posts/third').expect(404);
  });

  it('answers a document dataset whole, and refuses query parameters it has no items to select with', async () => {
    expect((await http.get('/api/v1/data/settings').expect(200)).body).toEqual({ theme: 'dark' });
    for (const query of ['limit=1', 'theme=dark', 'sort=theme']) expect((await http.get(`/api/v1/data/settings?${query}`).expect(400)).body.error.message).toMatch(/one document, not a list/);
    // Never written, it stood so at any time: its past is the package's data, as SPEC.md says of ?at=.
    expect((await http.get('/api/v1/data/settings?at=2000-01-01T00:00:00Z').expect(200)).body).toEqual({ theme: 'dark' });
    expect((await http.get('/api/v1/data/settings?at=yesterday').expect(400)).body.error.code).toBe('BAD_QUERY');
  });

  it('a POST without an id gets one, and its Location finds it', async () => {
    const created = await http.post('/api/v1/data/posts').send({ title: 'No id' }).expect(201);
    expect(created.body.id).toEqual(expect.any(String));
    await http.get(created.headers.location!).expect(200, created.body);
  });

  it('YAML datasets are served and written like JSON ones', async () => {
    await http.get('/api/v1/data/notes/n1').expect(200, { id: 'n1', text: 'yaml note' });
    await http.post('/api/v1/data/notes').send({ id: 'n2', text: 'new' }).expect(201);
    expect(overlays.at(work.path).logText('notes')).toContain('"id":"n2"');
  });

  it.each([
    ['malformed JSON', (t: request.Test) => t.set('Content-Type', 'application/json').send('{"title":'), 400, 'MALFORMED_JSON'],
    ['an empty body', (t: request.Test) => t.set('Content-Type', 'application/json'), 400, 'MALFORMED_JSON'],
    ['a JSON array', (t: request.Test) => t.send([{ title: 'x' }]), 400, 'INVALID_ITEM'],
    ['a JSON scalar', (t: request.Test) => t.set('Content-Type', 'application/json').send('"text"'), 400, 'INVALID_ITEM'],
    ['an id with a slash', (t: request.Test) => t.send({ id: 'a/b', title: 'x' }), 400, 'INVALID_ITEM'],
    ['an id with ..', (t: request.Test) => t.send({ id: '..', title: 'x' }), 400, 'INVALID_ITEM'],
    ['the id ".", which no URL could name', (t: request.Test) => t.send({ id: '.', title: 'x' }), 400, 'INVALID_ITEM'],
    ['a body that is not UTF-8', (t: request.Test) => t.set('Content-Type', 'application/json').serialize((bytes) => bytes).send(Buffer.from([...Buffer.from('{"title":"'), 0xff, 0xfe, ...Buffer.from('"}')])), 400, 'MALFORMED_JSON'],
    // JSON.parse reads 1e400 as Infinity, which would be stored, and read back, as null.
    ['a number beyond a double', (t: request.Test) => t.set('Content-Type', 'application/json').send('{"title":"x","score":[1,{"n":-1e400}]}'), 400, 'INVALID_ITEM'],
    ['a duplicate id', (t: request.Test) => t.send({ id: 'first', title: 'again' }), 409, 'DUPLICATE_ID'],
    ['a body over the limit', (t: request.Test) => t.send({ title: 'x'.repeat(5000) }), 413, 'BODY_TOO_LARGE'],
    ['a gzip body that inflates over the limit', (t: request.Test) => gzipped(t, { title: 'x'.repeat(50_000) }), 413, 'BODY_TOO_LARGE'],
    ['a body in an encoding the reactor does not know', (t: request.Test) => t.set('Content-Type', 'application/json').set('Content-Encoding', 'zstd-unknown').send('{}'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('POST with %s is refused', async (_name, build, status, code) => {
    const response = await build(http.post('/api/v1/data/posts')).expect(status);
    expect(response.body.error.code).toBe(code);
  });

  it('lets a client go that sends half a body and hangs up, and answers the next request', async () => {
    const server = await new Promise<Server>((resolve) => { const listening = fixture.http.listen(0, '127.0.0.1', () => resolve(listening)); });
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /api/v1/data/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id": "half", "ti');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await http.post('/api/v1/data/posts').send({ id: 'after-half', title: 'whole' }).expect(201);
    await http.get('/api/v1/data/posts/half').expect(404);
  });

  it('takes a gzip-encoded body as its JSON', async () => {
    const created = await gzipped(http.post('/api/v1/data/posts'), { id: 'zipped', title: 'Zipped' }).expect(201);
    expect(created.body).toMatchObject({ id: 'zipped', title: 'Zipped' });
  });

  it('422 lists every schema error', async () => {
    const response = await http.post('/api/v1/data/posts').send({ title: '', views: -1 }).expect(422);
    expect(response.body.error.code).toBe('SCHEMA_VIOLATION');
    expect(response.body.error.details).toEqual([
      { path: '/title', message: 'must NOT have fewer than 1 characters' },
      { path: '/views', message: 'must be >= 0' },
    ]);
  });

  it('400 for an id that is not well-formed Unicode (a lone surrogate), storing nothing', async () => {
    const before = (await http.get('/api/v1/data/posts').expect(200)).body.length;
    for (const id of ['\ud800', 'a\udc00b', '\udbff']) {
      // Sent as raw JSON: the escape must reach the server as written.
      const response = await http.post('/api/v1/data/posts').set('Content-Type', 'application/json').send(`{"id": ${JSON.stringify(id)}, "title": "t"}`).expect(400);
      expect(response.body.error.message).toMatch(/not well-formed Unicode/);
    }
    await http.put('/api/v1/data/posts/first').set('Content-Type', 'application/json').send('{"id": "\\ud800", "title": "t"}').expect(400);
    expect((await http.get('/api/v1/data/posts').expect(200)).body.length).toBe(before);
    await http.post('/api/v1/data/posts').send({ id: 'astral-\u{1F600}', title: 't' }).expect(201);
  });

  it('400 for a body nested 2,000 levels deep, while the writes of other clients beside it all succeed', async () => {
    const deep = `{"id": "deep", "title": "t", "nest": ${'['.repeat(2_000)}${']'.repeat(2_000)}}`;
    const others = Array.from({ length: 30 }, (_, i) => http.post('/api/v1/data/posts').send({ id: `beside-${i}`, title: 'fine' }).then((r) => r.status));
    const hostile = http.post('/api/v1/data/posts').set('Content-Type', 'application/json').send(deep).then((r) => [r.status, r.body.error?.message]);
    const [statuses, refused] = await Promise.all([Promise.all(others), hostile]);
    expect(statuses).toEqual(Array.from({ length: 30 }, () => 201));
    expect(refused).toEqual([400, 'the JSON body nests deeper than 64 levels of arrays and objects']);
    await http.get('/api/v1/data/posts/deep').expect(404);
  });

  it('409 for a PUT whose body names another id; 404 for absent items and datasets', async () => {
    expect((await http.put('/api/v1/data/posts/first').send({ id: 'second', title: 'x' }).expect(409)).body.error.code).toBe('ID_MISMATCH');
    expect((await http.put('/api/v1/data/posts/ghost').send({ title: 'x' }).expect(404)).body.error.code).toBe('ITEM_NOT_FOUND');
    expect((await http.delete('/api/v1/data/posts/ghost').expect(404)).body.error.code).toBe('ITEM_NOT_FOUND');
    expect((await http.get('/api/v1/data/ghosts').expect(404)).body.error.code).toBe('DATASET_NOT_FOUND');
    await http.post('/api/v1/data/ghosts').send({}).expect(404);
    await http.get('/api/v1/data/posts/a/b').expect(404);
  });

  it('405 with Allow for a wrong verb', async () => {
    const collection = await http.put('/api/v1/data/posts').send({}).expect(405);
    expect(collection.headers.allow).toBe('GET, HEAD, POST');
    const item = await http.post('/api/v1/data/posts/first').send({}).expect(405);
    expect(item.headers.allow).toBe('GET, HEAD, PUT, DELETE');
    expect(item.body.error.code).toBe('METHOD_NOT_ALLOWED');
    // Where writes are refused, reads are all there is: a document, a read-only package.
    expect((await http.put('/api/v1/data/settings').send({}).expect(405)).headers.allow).toBe('GET, HEAD');
    expect((await http.patch('/frozen/api/v1/data/posts/only').send({}).expect(405)).headers.allow).toBe('GET, HEAD');
    expect((await http.put('/frozen/api/v1/data/posts').send({}).expect(405)).headers.allow).toBe('GET, HEAD');
  });

  it('403 with a clear message on a read-only package, whatever the body', async () => {
    for (const attempt of [http.post('/frozen/api/v1/data/posts').send({ title: 'x' }), http.put('/frozen/api/v1/data/posts/only').send('{bad'), http.delete('/frozen/api/v1/data/posts/only')]) {
      const response = await attempt.expect(403);
      expect(response.body.error.code).toBe('READ_ONLY');
      expect(response.body.error.message).toMatch(/frozen is read-only/);
    }
    await http.get('/frozen/api/v1/data/posts/only').expect(200);
  });

  it('500 concurrent POSTs with distinct ids leave exactly 500 new items', async () => {
    const before = (await http.get('/api/v1/data/posts').expect(200)).body.length;
    const statuses = await Promise.all(Array.from({ length: 500 }, (_, i) => http.post('/api/v1/data/posts').send({ id: `bulk-${i}`, title: `Bulk ${i}` }).then((r) => r.status)));
    expect(statuses.every((s) => s === 201)).toBe(true);
    const after = (await http.get('/api/v1/data/posts').expect(200)).body;
    expect(after.length).toBe(before + 500);
    expect(new Set(after.map((p: { id: string }) => p.id)).size).toBe(after.length);
  });

  it('concurrent PUTs to one id leave exactly one of the bodies intact', async () => {
    const bodies = Array.from({ length: 50 }, (_, i) => ({ id: 'second', title: `Version ${i}`, views: i }));
    await Promise.all(bodies.map((body) => http.put('/api/v1/data/posts/second').send(body).expect(200)));
    const final = (await http.get('/api/v1/data/posts/second').expect(200)).body;
    expect(bodies).toContainEqual(final);
  });
});

describe('content writes', () => {
  it('PUT creates a file in the overlay and serves it from the next request on', async () => {
    const written = await http.put('/notes/new.html').set('Content-Type', 'text/html').send('<p>new</p>').expect(200);
    expect(written.body).toEqual({ path: '/notes/new.html', resource: 'content/notes/new.html' });
    const served = await http.get('/notes/new.html').expect(200).expect('Content-Type', 'text/html; charset=utf-8');
    expect(served.text).toBe('<p>new</p>');
    await http.put('/notes/new.html').set('Content-Type', 'text/html').send('<p>newer</p>').expect(200);
    expect((await http.get('/notes/new.html').expect(200)).text).toBe('<p>newer</p>');
  });

  it('PUT over a package file shadows it; DELETE tombstones it; a later PUT brings it back', async () => {
    await http.get('/about.html').expect(200, '<p>about</p>');
    await http.put('/about.html').set('Content-Type', 'text/html').send('<p>edited</p>').expect(200);
    expect((await http.get('/about.html').expect(200)).text).toBe('<p>edited</p>');
    await http.delete('/about.html').expect(204);
    await http.get('/about.html').expect(404);
    await http.delete('/about.html').expect(404);
    await http.put('/about.html').set('Content-Type', 'text/html').send('<p>back</p>').expect(200);
    expect((await http.get('/about.html').expect(200)).text).toBe('<p>back</p>');
  });

  it('409 where a file and a directory would meet, either way round, and nothing left behind', async () => {
    await http.put('/meet/a.txt/b.txt').set('Content-Type', 'text/plain').send('inner').expect(200);
    for (let i = 0; i < 3; i++) {
      const clash = await http.put('/meet/a.txt').set('Content-Type', 'text/plain').send('x'.repeat(1000)).expect(409);
      expect(clash.body.error).toMatchObject({ code: 'CONTENT_CONFLICT', message: expect.stringMatching(/meet\/a\.txt cannot be written as a file: it is a directory holding meet\/a\.txt\/b\.txt/) });
    }
    expect((await http.put('/about.html/child.txt').set('Content-Type', 'text/plain').send('x').expect(409)).body.error.message).toMatch(/about\.html is a file/);
    await http.delete('/meet/a.txt').expect(404);
    expect([...overlays.at(work.path).files.keys()].filter((path) => path.startsWith('meet/'))).toEqual(['meet/a.txt/b.txt']);
    expect((await http.get('/meet/a.txt/b.txt').expect(200)).text).toBe('inner');
  });

  it('DELETE of a base file hides it even though the package still has it', async () => {
    await http.get('/style.css').expect(200);
    await http.delete('/style.css').expect(204);
    await http.get('/style.css').expect(404);
    expect(overlays.at(work.path).tombstoneList).toContain('style.css');
  });

  it('refuses bodies that are not text, reserved names, non-content routes and read-only packages', async () => {
    expect((await http.put('/logo.png').set('Content-Type', 'image/png').send(Buffer.from([0x89, 0x50])).expect(415)).body.error.code).toBe('NOT_TEXT');
    expect((await http.put('/bin.txt').set('Content-Type', 'text/plain').send(Buffer.from([0x61, 0, 0x62])).expect(415)).body.error.code).toBe('NOT_TEXT');
    expect((await http.put('/.pkg-tombstones').set('Content-Type', 'application/json').send('[]').expect(400)).body.error.code).toBe('BAD_CONTENT_PATH');
    expect((await http.put('/big.txt').set('Content-Type', 'text/plain').send('x'.repeat(5000)).expect(413)).body.error.code).toBe('BODY_TOO_LARGE');
    expect((await http.put('/frozen/index.html').set('Content-Type', 'text/html').send('<p>x</p>').expect(403)).body.error.code).toBe('READ_ONLY');
    expect((await http.post('/index.html').send('x').expect(405)).headers.allow).toBe('GET, HEAD, PUT, DELETE');
    expect((await http.post('/frozen/index.html').send('x').expect(405)).headers.allow).toBe('GET, HEAD');
    await http.put('/../etc/passwd').send('x').expect(400);
  });

  it('refuses, with 4xx and before writing, names no package could hold or that spell a visible name again', async () => {
    // A name of 231 bytes (255 once written under its temporary name), a path of 1,025: a file system would refuse them mid-write.
    const long = await http.put(`/${'a'.repeat(227)}.txt`).set('Content-Type', 'text/plain').send('x').expect(400);
    expect(long.body.error).toMatchObject({ code: 'BAD_CONTENT_PATH', message: expect.stringMatching(/at most 230 bytes/) });
    expect((await http.put(`/${'é'.repeat(114)}.txt`).set('Content-Type', 'text/plain').send('x').expect(400)).body.error.message).toMatch(/at most 230 bytes/);
    expect((await http.put(`/${'d/'.repeat(512)}x.txt`).set('Content-Type', 'text/plain').send('x').expect(400)).body.error.message).toMatch(/at most 1024 bytes/);
    expect((await http.put('/c:windows.txt').set('Content-Type', 'text/plain').send('x').expect(400)).body.error).toMatchObject({ code: 'BAD_CONTENT_PATH', message: 'c:windows.txt: drive letter' });
    // "café" composed (NFC), then decomposed (NFD): one name once normalized, which save would refuse.
    await http.put('/caf%C3%A9.txt').set('Content-Type', 'text/plain').send('composed').expect(200);
    const again = await http.put('/cafe%CC%81.txt').set('Content-Type', 'text/plain').send('decomposed').expect(409);
    expect(again.body.error).toMatchObject({ code: 'CONTENT_CONFLICT', message: expect.stringMatching(/another spelling of "caf\u00e9\.txt"/) });
    await http.put('/caf%C3%A9.txt').set('Content-Type', 'text/plain').send('rewritten').expect(200);
    expect([...overlays.at(work.path).files.keys()].filter((path) => path.startsWith('caf') || path.length > 200 || path.includes(':'))).toEqual(['caf\u00e9.txt']);
  });

  it('the written routes appear in introspection', async () => {
    await http.put('/listed.txt').set('Content-Type', 'text/plain').send('listed').expect(200);
    const routes = (await http.get('/api/v1/introspect/routes').expect(200)).body.routes[0].routes.map((r: { path: string }) => r.path);
    expect(routes).toContain('/listed.txt');
    expect(routes).not.toContain('/style.css');
  });
});

describe('save', () => {
  it('keeps every item at the id it was served under, and drops the routes of removed files, so the saved package validates and serves the same', async () => {
    const own = temporaryDirectory('cap-data-save-ids-');
    const pkg = demoPackage({
      'content/b.txt': 'b',
      'routes.json': JSON.stringify({ routes: [{ path: '/', resource: 'content/index.html' }, { path: '/b.txt', resource: 'content/b.txt' }, { path: '/bee', resource: 'content/b.txt' }] }),
      'data/jots.json': JSON.stringify([{ t: 'x' }, { t: 'y' }]),
      'storage.json': JSON.stringify({ storage: { dataSets: { jots: { source: 'data/jots.json' } } } }),
    });
    const first = await startReactor(new MemoryOpener().add('site', pkg), [{ source: 'site' }], { workdir: own.path });
    try {
      const served = request(first.http);
      await served.delete('/api/v1/data/jots/1').expect(204);
      await served.post('/api/v1/data/jots').send({ id: '3', t: 'q' }).expect(201);
      expect((await served.post('/api/v1/data/jots').send({ t: 'r' }).expect(201)).headers.location).toBe('/api/v1/data/jots/4');
      await served.delete('/b.txt').expect(204);
      const saved = (await served.post('/package/demo-site/save').expect(200)).body.path as string;
      const report = await productionContainer().get(USE_CASE.ValidatePackage).execute(saved);
      expect(report.checks.flatMap((check) => check.errors)).toEqual([]);
      const second = await startReactor(productionOpener(), [{ source: saved }], { workdir: `${own.path}/second` });
      try {
        const again = request(second.http);
        expect((await again.get('/api/v1/data/jots/2').expect(200)).body).toMatchObject({ t: 'y' });
        expect((await again.get('/api/v1/data/jots/3').expect(200)).body).toEqual({ id: '3', t: 'q' });
        expect((await again.get('/api/v1/data/jots/4').expect(200)).body).toMatchObject({ t: 'r' });
        expect((await again.get('/api/v1/data/jots').expect(200)).body).toHaveLength(3);
        await again.get('/b.txt').expect(404);
        await again.get('/bee').expect(404);
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
      own.remove();
    }
  });

  it('folds base and overlay into <workdir>/saved/<name>-<patch+1>.cap, which validates', async () => {
    const saved = await http.post('/package/demo-site/save').expect(200);
    expect(saved.body).toEqual({ path: `${work.path}/saved/demo-site-1.2.4.cap`, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), name: 'demo-site', version: '1.2.4' });
    const container = productionContainer();
    const report = await container.get(USE_CASE.ValidatePackage).execute(saved.body.path);
    expect(report.valid).toBe(true);
    const reloaded = await startReactor(productionOpener(), [{ source: saved.body.path }], { workdir: `${work.path}/second` });
    try {
      const again = request(reloaded.http);
      const live = (await http.get('/api/v1/data/posts').expect(200)).body;
      expect((await again.get('/api/v1/data/posts').expect(200)).body).toEqual(live);
      expect((await again.get('/api/v1/data/notes/n2').expect(200)).body).toEqual({ id: 'n2', text: 'new' });
      expect((await again.get('/about.html').expect(200)).text).toBe('<p>back</p>');
      expect((await again.get('/notes/new.html').expect(200)).text).toBe('<p>newer</p>');
      await again.get('/style.css').expect(404);
      expect((await again.get('/package/demo-site/metadata').expect(200)).body.version).toBe('1.2.4');
    } finally {
      await reloaded.stop();
    }
  });

  it('packs once for the saves asked before one begins, and once more for those asked while it runs, with every write made before they asked', async () => {
    /** A saver whose first pack waits until the test lets it go. */
    class HeldSaver extends SavePackage {
      calls = 0;
      release!: () => void;
      private readonly held = new Promise<void>((resolve) => (this.release = resolve));
      override async execute(request: SaveRequest) {
        if (++this.calls === 1) await this.held;
        return super.execute(request);
      }
    }
    const saver = new HeldSaver(productionContainer().get(USE_CASE.PackPackage));
    const own = temporaryDirectory('cap-data-saves-');
    const fixture = await startReactor(new MemoryOpener().add('site', site), [{ source: 'site' }], { workdir: own.path }, swap(PORT.OverlayStore, new MemoryOverlayStore()), swap(USE_CASE.SavePackage, saver));
    try {
      const http = request(fixture.http);
      const [mount] = fixture.reactor.all();
      const first = Array.from({ length: 10 }, () => fixture.reactor.save(mount!));
      await new Promise((resolve) => setImmediate(resolve));
      expect(saver.calls).toBe(1);
      await http.post('/api/v1/data/notes').send({ id: 'while-saving', text: 'x' }).expect(201);
      const second = Array.from({ length: 10 }, () => fixture.reactor.save(mount!));
      saver.release();
      const [firstSaves, secondSaves] = await Promise.all([Promise.all(first), Promise.all(second)]);
      expect(saver.calls).toBe(2);
      expect(new Set(firstSaves).size).toBe(1);
      expect(new Set(secondSaves).size).toBe(1);
      const reloaded = await startReactor(productionOpener(), [{ source: secondSaves[0]!.path }], { workdir: `${own.path}/second` });
      try {
        expect((await request(reloaded.http).get('/api/v1/data/notes/while-saving').expect(200)).body).toEqual({ id: 'while-saving', text: 'x' });
      } finally {
        await reloaded.stop();
      }
      expect((await http.post('/package/demo-site/save').expect(200)).body.path).toBe(secondSaves[0]!.path);
      expect(saver.calls).toBe(3);
    } finally {
      await fixture.stop();
      own.remove();
    }
  });

  it('answers 503 OVERLAY, not a 500, when a folder stands where the saved package goes, and leaves no partial file', async () => {
    const own = temporaryDirectory('cap-save-folder-');
    const fixture = await startReactor(new MemoryOpener().add('site', site), [{ source: 'site' }], { workdir: own.path }, swap(PORT.OverlayStore, new MemoryOverlayStore()));
    try {
      mkdirSync(join(own.path, 'saved', 'demo-site-1.2.4.cap'), { recursive: true });
      const refused = await request(fixture.http).post('/package/demo-site/save');
      expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([503, 'OVERLAY', expect.stringMatching(/cannot write demo-site-1\.2\.4\.cap into .*saved: EISDIR/)]);
      expect(readdirSync(join(own.path, 'saved'))).toEqual(['demo-site-1.2.4.cap']);
    } finally {
      await fixture.stop();
      own.remove();
    }
  });

  it('only POST; unknown packages 404', async () => {
    expect((await http.get('/package/demo-site/save').expect(405)).headers.allow).toBe('POST');
    await http.post('/package/ghost/save').expect(404);
  });
});

describe('a dataset whose schema multiplies the checks of one item past the limit', () => {
  it('is refused when the package loads, as any invalid schema is, so no write can stall on it', async () => {
    const hostile = demoPackage({
      'data/bombs.json': JSON.stringify([{ id: 'b1' }]),
      'data/bombs.schema.json': JSON.stringify(doublingSchema(24)),
      'storage.json': JSON.stringify({ storage: { dataSets: { bombs: { source: 'data/bombs.json', schemaFile: 'data/bombs.schema.json', schemaType: 'json-schema' } } } }),
    });
    const own = temporaryDirectory('cap-data-bombs-');
    try {
      const reactor = startReactor(new MemoryOpener().add('bombs', hostile), [{ source: 'bombs' }], { workdir: own.path }, swap(PORT.OverlayStore, new MemoryOverlayStore()));
      await expect(reactor).rejects.toMatchObject({ code: 'CONFIG_INVALID', file: 'data/bombs.schema.json', issues: [expect.stringContaining('more than 10,000 subschema checks')] });
    } finally {
      own.remove();
    }
  });
});

describe('a dataset whose schema goes round in a circle', () => {
  it('answers a write with a 503 naming the schema, not a 500; its items are still read', async () => {
    const circles = demoPackage({
      'data/circles.json': JSON.stringify([{ id: 'c1' }]),
      'data/circles.schema.json': JSON.stringify({ $ref: '#' }),
      'storage.json': JSON.stringify({ storage: { dataSets: { circles: { source: 'data/circles.json', schemaFile: 'data/circles.schema.json', schemaType: 'json-schema' } } } }),
    });
    const own = temporaryDirectory('cap-data-circles-');
    const reactor = await startReactor(new MemoryOpener().add('circles', circles), [{ source: 'circles' }], { workdir: own.path }, swap(PORT.OverlayStore, new MemoryOverlayStore()));
    try {
      const answer = await request(reactor.http).post('/api/v1/data/circles').send({ id: 'c2' });
      expect(answer.status).toBe(503);
      expect(answer.body.error).toEqual({ code: 'UNUSABLE_SCHEMA', message: expect.stringContaining('data/circles.schema.json cannot check a value') });
      expect((await request(reactor.http).get('/api/v1/data/circles')).body).toEqual([{ id: 'c1' }]);
    } finally {
      await reactor.stop();
      own.remove();
    }
  });
});
