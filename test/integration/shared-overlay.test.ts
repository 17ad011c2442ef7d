import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { PORT } from '../../src/composition/service-ids.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { demoPackage } from '../support/demo-package.js';
import { productionContainer, productionOpener, swap } from '../support/production-container.js';
import { startReactorIn } from '../support/reactor-fixture.js';
import { temporaryDirectory } from '../support/paths.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { signInAt, startProvider } from '../support/oauth2-provider.js';
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { LISTENER_NAME } from '../../src/adapters/postgres/postgres-schema.js';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';


const site = demoPackage({
  'content/index.html': '<p>base</p>',
  'data/posts.json': JSON.stringify([{ id: 'first', title: 'First' }]),
  'storage.json': JSON.stringify({ storage: { dataSets: { posts: { source: 'data/posts.json' } } } }),
});

type Fixture = Awaited<ReturnType<typeof startReactorIn>>;
let postgres: TestPostgres;
let url: string;
const workdirs = [temporaryDirectory('cap-shared-a-'), temporaryDirectory('cap-shared-b-')];
let reactors: Fixture[] = [];
const http = (index: number) => request(reactors[index]!.http);

/**
 * What reactor `index` answers for `path` once it has heard of another's write. A write is
 * acknowledged only once every reactor listening applied it, so this is the next request;
 * only after an outage, while a reactor's listening connection is not back yet, may the
 * answer come a moment later (the reconnect reads everything again).
 */
async function onceHeard(index: number, path: string, heard: (answer: request.Response) => boolean): Promise<request.Response> {
  let answer = await http(index).get(path);
  for (const deadline = Date.now() + 3000; !heard(answer) && Date.now() < deadline; answer = await http(index).get(path)) await new Promise((resolve) => setTimeout(resolve, 10));
  return answer;
}
const statusOnceHeard = async (index: number, path: string, expected: number) => (await onceHeard(index, path, (answer) => answer.status === expected)).status;

/** Two reactors with workdirs of their own, on one database: as two machines behind a load balancer. */
async function startBoth(): Promise<void> {
  reactors = await Promise.all(workdirs.map((workdir) => startReactorIn(productionContainer(swap(PORT.PackageOpener, new MemoryOpener().add('site', site))), [{ source: 'site' }], { workdir: workdir.path, overlay: url })));
}

beforeAll(async () => {
  postgres = await startPostgres();
  url = postgres.url(await postgres.createDatabase());
  await startBoth();
}, 60_000);
afterAll(async () => {
  await Promise.all(reactors.map((reactor) => reactor.stop()));
  await postgres?.stop();
  for (const workdir of workdirs) workdir.remove();
});

/** Requests spread over both reactors, as a load balancer spreads them; both must list everything the other acknowledged. */
describe('two reactors on one PostgreSQL overlay store', () => {
  it('lists on both every item of concurrent POSTs split between them', async () => {
    const posts = Array.from({ length: 200 }, (_, i) => http(i % 2).post('/api/v1/data/posts').send({ title: `post ${i}` }));
    const answers = await Promise.all(posts);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201));
    const ids = new Set(answers.map((answer) => answer.body.id as string));
    expect(ids.size).toBe(200);
    for (const index of [0, 1]) {
      const listed = (await http(index).get('/api/v1/data/posts?limit=1000').expect(200)).body as Array<{ id: string }>;
      expect(listed).toHaveLength(201);
      for (const id of ids) expect(listed.some((item) => item.id === id)).toBe(true);
    }
  });

  it('lets the database decide a duplicate id: of two concurrent creates on two reactors, one is 201 and one 409', async () => {
    for (let round = 0; round < 10; round++) {
      const both = await Promise.all([0, 1].map((index) => http(index).post('/api/v1/data/posts').send({ id: `same-${round}`, title: 'x' })));
      expect(both.map((answer) => answer.status).sort()).toEqual([201, 409]);
    }
  });

  it('keeps any text an item holds exactly, quotes, backslashes, control characters and SQL included', async () => {
    const title = `it's "quoted" \\ back\\slashed \u0000\u0001\n\t ✓ 🔑 E'\\x41' $$ $tag$ '); DROP TABLE pkg_overlay_operations; --`;
    const item = { id: 'quoted', title, "it's \\ a key": ["'", '\\', '"'] };
    expect((await http(0).post('/api/v1/data/posts').send(item).expect(201)).body).toEqual(item);
    for (const index of [0, 1]) expect((await http(index).get('/api/v1/data/posts/quoted').expect(200)).body).toEqual(item);
  });

  it('serves a content PUT on one reactor from the other on the next request, and a DELETE there is a 404 here', async () => {
    await http(0).put('/notes/shared.txt').set('Content-Type', 'text/plain').send('written on A').expect(200);
    expect((await http(1).get('/notes/shared.txt').expect(200)).text).toBe('written on A');
    await http(1).put('/notes/shared.txt').set('Content-Type', 'text/plain').send('rewritten on B').expect(200);
    expect((await http(0).get('/notes/shared.txt').expect(200)).text).toBe('rewritten on B');
    await http(1).delete('/notes/shared.txt').expect(204);
    await http(0).get('/notes/shared.txt').expect(404);
    await http(0).delete('/index.html').expect(204);
    await http(1).get('/index.html').expect(404);
  });

  it('lets one of two conditional content writes naming one ETag on two reactors through, and refuses the other 412 (no lost update)', async () => {
    for (let round = 0; round < 10; round++) {
      await http(0).put('/race.txt').type('text/plain').send(`base ${round}`).expect(200);
      const tag = (await http(1).head('/race.txt').expect(200)).headers.etag!;
      const both = await Promise.all([0, 1].map((index) => http(index).put('/race.txt').set('If-Match', tag).type('text/plain').send(`from ${index}`)));
      expect(both.map((answer) => answer.status).sort()).toEqual([200, 412]);
      const winner = both.findIndex((answer) => answer.status === 200);
      for (const index of [0, 1]) expect((await http(index).get('/race.txt')).text).toBe(`from ${winner}`);
    }
    for (let round = 0; round < 5; round++) {
      const both = await Promise.all([0, 1].map((index) => http(index).put(`/created-${round}.txt`).set('If-None-Match', '*').type('text/plain').send(`from ${index}`)));
      expect(both.map((answer) => answer.status).sort()).toEqual([200, 412]);
    }
  });

  it('of a file and a folder of one name written at once on two reactors, or two spellings of one name, takes one and refuses the other 409, so the overlay still saves', async () => {
    for (let round = 0; round < 8; round++) {
      const [file, below] = await Promise.all([http(0).put(`/clash-${round}`).type('text/plain').send('a file'), http(1).put(`/clash-${round}/inner.txt`).type('text/plain').send('below it')]);
      expect([file.status, below.status].sort()).toEqual([200, 409]);
      expect((file.status === 409 ? file : below).body.error.code).toBe('CONTENT_CONFLICT');
    }
    const spellings = await Promise.all([http(0).put('/caf%C3%A9.txt').type('text/plain').send('composed'), http(1).put('/cafe%CC%81.txt').type('text/plain').send('decomposed')]);
    expect(spellings.map((answer) => answer.status).sort()).toEqual([200, 409]);
    await http(0).post('/package/demo-site/save').expect(200);
  });

  it("serves a write acknowledged while the other's listening connection was down from the next request there: that one waits until it hears again", async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      for (let round = 0; round < 5; round++) {
        // A network blip, an idle-connection killer or a DBA: every reactor's listening connection ends at once.
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE '${LISTENER_NAME}%'`);
        await http(0).put(`/notes/blip-${round}.txt`).set('Content-Type', 'text/plain').send(`blip ${round}`).expect(200);
        const created = await http(0).post('/api/v1/data/posts').send({ title: `blip ${round}` }).expect(201);
        expect((await http(1).get(`/notes/blip-${round}.txt`)).status).toBe(200);
        expect((await http(1).get(created.headers.location!)).status).toBe(200);
      }
    } finally {
      await admin.end();
    }
  });

  it('serves an item written on one reactor from the other at once, with its ETag, and PUT and DELETE there', async () => {
    const created = (await http(0).post('/api/v1/data/posts').send({ id: 'both', title: 'v1' }).expect(201)).body;
    expect(created.id).toBe('both');
    const there = await http(1).get('/api/v1/data/posts/both').expect(200);
    await http(1).put('/api/v1/data/posts/both').set('If-Match', there.headers.etag!).send({ title: 'v2' }).expect(200);
    expect((await http(0).get('/api/v1/data/posts/both').expect(200)).body.title).toBe('v2');
    await http(0).delete('/api/v1/data/posts/both').set('If-Match', there.headers.etag!).expect(412);
    await http(0).delete('/api/v1/data/posts/both').expect(204);
    await http(1).get('/api/v1/data/posts/both').expect(404);
  });

  it('starts again with every write: new reactors on the same database read the same state', async () => {
    const before = (await http(0).get('/api/v1/data/posts?limit=1000').expect(200)).body;
    await Promise.all(reactors.map((reactor) => reactor.stop()));
    await startBoth();
    for (const index of [0, 1]) expect((await http(index).get('/api/v1/data/posts?limit=1000').expect(200)).body).toEqual(before);
    await http(1).get('/index.html').expect(404);
  });

  it('answers writes 503 with a clear error while the database is away, acknowledges none, and recovers by itself', async () => {
    await postgres.halt();
    try {
      const refused = await http(0).post('/api/v1/data/posts').send({ id: 'during-outage', title: 'x' });
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('OVERLAY');
      expect(refused.body.error.message).toMatch(/overlay database postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/test_\d+ cannot be reached/);
      await http(1).put('/notes/outage.txt').set('Content-Type', 'text/plain').send('x').expect(503);
      // Reads answer from memory meanwhile; the reactor says it is not ready, and why.
      await http(1).get('/api/v1/data/posts/first').expect(200);
      expect((await http(1).get('/readyz').expect(503)).text).toBe('not ready: overlay store\n');
    } finally {
      await postgres.restart();
    }
    // Ready again once each hears the others again (its listening connection back, tried as soon as the database answers, not up to 5 s later): a write on one is then served by the other at once.
    for (const index of [0, 1]) await eventually(async () => (await http(index).get('/readyz')).status === 200, `reactor ${index} ready again`);
    await http(0).post('/api/v1/data/posts').send({ id: 'ready-again', title: 'x' }).expect(201);
    await http(1).get('/api/v1/data/posts/ready-again').expect(200);
    await http(0).post('/api/v1/data/posts').send({ id: 'after-outage', title: 'x' }).expect(201);
    await http(0).get('/readyz').expect(200);
    // The listening connection came back too: what one writes, the other serves.
    expect(await statusOnceHeard(1, '/api/v1/data/posts/after-outage', 200)).toBe(200);
    await http(1).post('/api/v1/data/posts').send({ id: 'after-outage-b', title: 'x' }).expect(201);
    expect(await statusOnceHeard(0, '/api/v1/data/posts/after-outage-b', 200)).toBe(200);
    await http(0).get('/api/v1/data/posts/during-outage').expect(404);
  }, 30_000);
});

describe('sessions and saving on two reactors of one database', () => {
  const BASE = 'http://reactor.test';
  let provider: Awaited<ReturnType<typeof startProvider>>;
  let pair: Fixture[] = [];
  const pairWorkdirs: Array<ReturnType<typeof temporaryDirectory>> = [];
  const authSite = (url: string) =>
    demoPackage({
      'authentication.json': JSON.stringify({ authentication: { oauth2: { enabled: true, provider: 'mock', clientId: 'reactor-client', authorizationUrl: `${url}/authorize`, tokenUrl: `${url}/token`, userinfoUrl: `${url}/userinfo` } } }),
      'content/admin.html': '<p>admin</p>',
      'routes.json': JSON.stringify({ routes: [{ path: '/admin.html', resource: 'content/admin.html', accessControl: { roles: ['admin'] } }] }),
    });
  const deployFile = (name: string, authentication: Record<string, unknown>) => {
    const file = join(workdirs[0]!.path, name);
    writeFileSync(file, JSON.stringify({ baseUrl: BASE, authentication: { oauth2: { clientSecret: 'client-secret' }, roles: { 'jo@example.org': ['admin'] }, ...authentication } }));
    return file;
  };
  const startPair = async (deploy: string) => {
    const database = postgres.url(await postgres.createDatabase());
    const opener = new MemoryOpener().add('auth-site', authSite(provider.url));
    const workdirs = [temporaryDirectory('cap-sessions-a-'), temporaryDirectory('cap-sessions-b-')];
    pairWorkdirs.push(...workdirs);
    return Promise.all(
      workdirs.map((workdir) =>
        startReactorIn(productionContainer(swap(PORT.PackageOpener, opener)), [{ source: 'auth-site' }], { workdir: workdir.path, overlay: database, deploy }),
      ),
    );
  };

  beforeAll(async () => {
    provider = await startProvider();
  });
  afterAll(async () => {
    await Promise.all(pair.map((reactor) => reactor.stop()));
    await provider?.stop();
    for (const workdir of pairWorkdirs) workdir.remove();
  });

  it('ends a session on every reactor when it logs out on one', async () => {
    pair = await startPair(deployFile('deploy.json', { sessionSecret: 'one-secret-for-every-reactor-0123' }));
    expect(pair[0]!.warnings.join('\n')).not.toMatch(/sessionSecret/);
    provider.server.service.on('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo', email: 'jo@example.org', email_verified: true }));
    const cookie = `pkg_session=${await signInAt(pair[0]!.http)}`;
    await request(pair[1]!.http).get('/admin.html').set('Cookie', cookie).expect(200);
    await request(pair[0]!.http).post('/auth/logout').set('Cookie', cookie).set('Origin', BASE).expect(204);
    let status = 0;
    for (let waited = 0; waited < 5000 && status !== 401; waited += 20) {
      status = (await request(pair[1]!.http).get('/admin.html').set('Cookie', cookie)).status;
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(401);
  });

  it('says at start that sessions are not shared when deploy.json sets no session secret', async () => {
    const reactors = await startPair(deployFile('deploy-without-secret.json', {}));
    try {
      expect(reactors[0]!.warnings.join('\n')).toMatch(/is shared with other reactors, and deploy.json sets no sessionSecret: a session made here is refused by the others; set one in deploy.json/);
    } finally {
      await Promise.all(reactors.map((reactor) => reactor.stop()));
    }
  });

  it('saves, on either reactor, the base with the writes of both', async () => {
    await http(0).put('/notes/saved.txt').set('Content-Type', 'text/plain').send('saved from A').expect(200);
    await http(0).post('/api/v1/data/posts').send({ id: 'saved-item', title: 'from A' }).expect(201);
    const saved = (await http(1).post('/package/demo-site/save').expect(200)).body as { path: string; version: string };
    expect(saved.path.startsWith(workdirs[1]!.path)).toBe(true);
    const source = await productionOpener().open(saved.path);
    try {
      expect(new TextDecoder().decode(await source.read('content/notes/saved.txt'))).toBe('saved from A');
      const posts = JSON.parse(new TextDecoder().decode(await source.read('data/posts.json'))) as Array<{ id: string }>;
      expect(posts.some((post) => post.id === 'saved-item')).toBe(true);
    } finally {
      await source.close();
    }
  });
});
