import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { startReactor } from '../support/reactor-fixture.js';
import { temporaryDirectory } from '../support/paths.js';

const site = (name: string) =>
  demoPackage({
    'metadata.json': JSON.stringify({ ...VALID_METADATA, name }),
    'data/items.json': JSON.stringify([{ id: 'a' }]),
    'data/many.json': JSON.stringify(Array.from({ length: 60 }, (_, i) => ({ id: `item-${i}`, text: 'enough to be compressed' }))),
    'content/long.txt': 'long enough to be sent compressed. '.repeat(100),
    'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' }, many: { source: 'data/many.json' } } } }),
  });

const work = temporaryDirectory('cap-cross-site-');
let fixture: Awaited<ReturnType<typeof startReactor>>;
beforeAll(async () => {
  const opener = new MemoryOpener().add('site', site('demo-site')).add('app', site('app-site'));
  fixture = await startReactor(opener, [{ source: 'site' }, { prefix: '/app/', source: 'app', cors: ['https://app.example'] }], { workdir: work.path, cors: ['https://everywhere.example'] });
});
afterAll(async () => {
  await fixture.stop();
  work.remove();
});

const ids = async (prefix = '') => (await request(fixture.http).get(`${prefix}/api/v1/data/items`).expect(200)).body.map((item: { id: string }) => item.id);

describe('writes from another site, with no authentication at all', () => {
  it('are refused with 403 CROSS_SITE_WRITE, whatever the body type, and store nothing', async () => {
    const post = () => request(fixture.http).post('/api/v1/data/items').set('Content-Type', 'text/plain');
    for (const refused of [
      post().set('Origin', 'https://evil.example'),
      post().set('Origin', 'null'),
      post().set('Sec-Fetch-Site', 'cross-site'),
      post().set('Sec-Fetch-Site', 'same-site'),
      post().set('Origin', 'https://evil.example').set('Sec-Fetch-Site', 'same-origin'),
    ]) {
      const response = await refused.send('{"id": "evil"}').expect(403);
      expect(response.body.error).toEqual({ code: 'CROSS_SITE_WRITE', message: expect.stringMatching(/from another site .* allow its origin with --cors/) });
    }
    await request(fixture.http).put('/evil.txt').set('Origin', 'https://evil.example').set('Content-Type', 'text/plain').send('x').expect(403);
    await request(fixture.http).delete('/index.html').set('Origin', 'https://evil.example').expect(403);
    await request(fixture.http).post('/package/demo-site/save').set('Origin', 'https://evil.example').expect(403);
    expect(await ids()).toEqual(['a']);
    await request(fixture.http).get('/evil.txt').expect(404);
  });

  it('from the reactor\'s own pages, and from tools that are not browsers, still work', async () => {
    await request(fixture.http).post('/api/v1/data/items').set('Sec-Fetch-Site', 'same-origin').send({ id: 'own-page' }).expect(201);
    await request(fixture.http).post('/api/v1/data/items').send({ id: 'curl' }).expect(201);
    await request(fixture.http).post('/api/v1/data/items').set('Host', '127.0.0.1:8864').set('Origin', 'http://127.0.0.1:8864').send({ id: 'same-origin' }).expect(201);
    await request(fixture.http).post('/api/v1/data/items').set('Host', 'localhost:8864').set('Origin', 'http://localhost:8864').send({ id: 'localhost' }).expect(201);
    await request(fixture.http).post('/api/v1/data/items').set('Host', '[::1]:8864').set('Origin', 'http://[::1]:8864').send({ id: 'ipv6' }).expect(201);
    await request(fixture.http).post('/api/v1/data/items').set('Host', '192.168.1.20').set('Origin', 'https://192.168.1.20').send({ id: 'behind-tls' }).expect(201);
    expect(await ids()).toEqual(['a', 'own-page', 'curl', 'same-origin', 'localhost', 'ipv6', 'behind-tls']);
  });

  it('a page of another name that reaches the reactor (DNS rebinding) is another site, same-origin as it looks', async () => {
    // evil.example's page, its name now resolving to this machine: to the browser, a same-origin request.
    const rebound = await request(fixture.http).post('/api/v1/data/items').set('Host', 'evil.example:8864').set('Origin', 'http://evil.example:8864').set('Sec-Fetch-Site', 'same-origin').send({ id: 'rebound' }).expect(403);
    expect(rebound.body.error).toEqual({ code: 'CROSS_SITE_WRITE', message: expect.stringMatching(/pages served under evil\.example:8864, which is not one of this reactor's names, count as another site's: set deploy\.json "baseUrl"/) });
    await request(fixture.http).put('/rebound.txt').set('Host', 'evil.example').set('Origin', 'http://evil.example').set('Content-Type', 'text/plain').send('x').expect(403);
    expect(await ids()).not.toContain('rebound');
  });

  it('reads from another site answer as before, without CORS headers', async () => {
    const response = await request(fixture.http).get('/api/v1/data/items').set('Origin', 'https://evil.example').expect(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('origins allowed to write', () => {
  it('--cors origins may write to every mount, with CORS answers and preflights', async () => {
    const preflight = await request(fixture.http).options('/api/v1/data/items').set('Origin', 'https://everywhere.example').set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'content-type').expect(204);
    expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': 'https://everywhere.example', 'access-control-allow-methods': expect.stringContaining('POST'), 'access-control-allow-headers': 'content-type', 'access-control-allow-credentials': 'true' });
    const created = await request(fixture.http).post('/api/v1/data/items').set('Origin', 'https://everywhere.example').send({ id: 'allowed' }).expect(201);
    expect(created.headers['access-control-allow-origin']).toBe('https://everywhere.example');
    expect(created.headers.vary).toMatch(/Origin/);
  });

  it('lets an allowed page read the paging headers of a collection: X-Total-Count and Link', async () => {
    const page = await request(fixture.http).get('/api/v1/data/many?page=2&per_page=10').set('Origin', 'https://everywhere.example').expect(200);
    expect(page.headers.link).toContain('rel="next"');
    const exposed = String(page.headers['access-control-expose-headers']).split(/\s*,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['X-Total-Count', 'Link']));
  });

  it('a mount\'s own "cors" origins may write to that mount only', async () => {
    await request(fixture.http).post('/app/api/v1/data/items').set('Origin', 'https://app.example').send({ id: 'from-app' }).expect(201);
    await request(fixture.http).post('/api/v1/data/items').set('Origin', 'https://app.example').send({ id: 'not-here' }).expect(403);
    await request(fixture.http).post('/app/api/v1/data/items').set('Origin', 'https://everywhere.example').send({ id: 'everywhere' }).expect(201);
    expect(await ids('/app')).toEqual(['a', 'from-app', 'everywhere']);
  });
});

describe('Vary: Origin', () => {
  const varyOf = (response: request.Response) => String(response.headers.vary ?? '').split(/\s*,\s*/).filter(Boolean).sort();

  it('is on every answer where origins are allowed, with or without Origin, merged with Accept-Encoding where that applies', async () => {
    const get = (path: string) => request(fixture.http).get(path);
    for (const [answer, vary] of [
      [await get('/style.css'), ['Origin']],
      [await get('/style.css').set('Origin', 'https://everywhere.example'), ['Origin']],
      [await get('/long.txt').set('Accept-Encoding', 'gzip'), ['Accept-Encoding', 'Origin']],
      [await get('/long.txt').set('Accept-Encoding', 'gzip').set('Origin', 'https://everywhere.example'), ['Accept-Encoding', 'Origin']],
      [await get('/long.txt').set('Range', 'bytes=0-3'), ['Accept-Encoding', 'Origin']],
      [await get('/long.txt').set('Range', 'bytes=9999-'), ['Accept-Encoding', 'Origin']],
      [await get('/long.txt').set('If-Match', '"other"'), ['Accept-Encoding', 'Origin']],
      [await get('/app/style.css').set('Origin', 'https://app.example'), ['Origin']],
      [await get('/nowhere.txt'), ['Origin']],
      [await get('/api/v1/data/items'), ['Origin']],
      [await get('/api/v1/data/many').set('Accept-Encoding', 'gzip'), ['Accept-Encoding', 'Origin']],
      [await get('/api/v1/data/many').set('Accept-Encoding', 'gzip').set('Origin', 'https://everywhere.example'), ['Accept-Encoding', 'Origin']],
      [await get('/graphql').set('Accept', 'text/html'), ['Accept', 'Origin']],
      [await get('/introspect/status'), ['Origin']],
    ] as const) expect([answer.status, varyOf(answer)]).toEqual([answer.status, vary]);
    const tag = (await get('/style.css')).headers.etag!;
    expect(varyOf(await get('/style.css').set('If-None-Match', tag).expect(304))).toEqual(['Origin']);
    const allowed = await get('/long.txt').set('Accept-Encoding', 'gzip').set('Origin', 'https://everywhere.example');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://everywhere.example');
  });

  it('is not sent where no origin is allowed', async () => {
    const plain = await startReactor(new MemoryOpener().add('site', site('demo-site')), [{ source: 'site' }], { workdir: work.path + '-plain' });
    try {
      expect((await request(plain.http).get('/style.css').set('Origin', 'https://evil.example')).headers.vary).toBeUndefined();
      expect(varyOf(await request(plain.http).get('/long.txt').set('Accept-Encoding', 'gzip'))).toEqual(['Accept-Encoding']);
      expect(varyOf(await request(plain.http).get('/api/v1/data/many').set('Accept-Encoding', 'gzip'))).toEqual(['Accept-Encoding']);
    } finally {
      await plain.stop();
    }
  });
});
