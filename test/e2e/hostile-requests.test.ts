import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { exchangeOnSocket } from '../support/raw-http.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-hostile-');
let running: ServeProcess;
beforeAll(async () => {
  cpSync(EXAMPLE_SITE, `${work.path}/site`, { recursive: true });
  // 30,000 articles: enough for one unbounded GraphQL query to hold the reactor for seconds.
  const articles = Array.from({ length: 30_000 }, (_, i) => ({ id: `article-${i}`, title: `Article ${i}`, body: 'x'.repeat(40), tags: ['a', 'b'], published: '2026-01-01' }));
  writeFileSync(`${work.path}/site/data/articles.json`, JSON.stringify(articles));
  // A pattern that backtracks for ever on JavaScript's engine, as a careless author may write one.
  const schema = JSON.parse(readFileSync(`${work.path}/site/data/articles.schema.json`, 'utf8')) as { properties: Record<string, unknown> };
  schema.properties.slug = { type: 'string', pattern: '^([a-z]+-?)+$' };
  // And one with a lookahead, which RE2 alone cannot match: it once ran on JavaScript's engine.
  schema.properties.code = { type: 'string', pattern: '^(?=a)(a+)+$' };
  writeFileSync(`${work.path}/site/data/articles.schema.json`, JSON.stringify(schema));
  running = await startServe([`${work.path}/site`, '--workdir', `${work.path}/workdir`]);
});
afterAll(async () => {
  await running.stop();
  work.remove();
});

const post = (body: string) => fetch(`${running.url}/api/v1/data/articles`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });

describe('a hostile client beside honest ones', () => {
  it('a body nested 20,000 levels deep is refused with 400, and the concurrent writes of other clients all succeed', async () => {
    const deep = `{"id": "deep", "title": "t", "body": "b", "tags": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const honest = Array.from({ length: 40 }, (_, i) => post(JSON.stringify({ id: `honest-${i}`, title: 't', body: 'b' })).then((r) => r.status));
    const hostile = Array.from({ length: 5 }, () => post(deep).then(async (r) => [r.status, ((await r.json()) as { error: { code: string } }).error.code]));
    const [statuses, refusals] = await Promise.all([Promise.all(honest), Promise.all(hostile)]);
    expect(statuses).toEqual(Array.from({ length: 40 }, () => 201));
    expect(refusals).toEqual(Array.from({ length: 5 }, () => [400, 'MALFORMED_JSON']));
    expect((await fetch(`${running.url}/api/v1/data/articles/deep`)).status).toBe(404);
    expect(running.stderr()).not.toMatch(/unexpected error|RangeError/);
  });

  it("a string the schema's pattern would backtrack on for ever is refused with 422 at once, and the reactor answers others meanwhile", async () => {
    const hostile = [
      ...Array.from({ length: 3 }, () => post(JSON.stringify({ id: 'slugged', title: 't', body: 'b', slug: `${'a'.repeat(5000)}!` }))),
      post(JSON.stringify({ id: 'coded', title: 't', body: 'b', code: `${'a'.repeat(5000)}!` })),
    ];
    const honest = post(JSON.stringify({ id: 'slug-ok', title: 't', body: 'b', slug: 'a-fine-slug', code: 'aaa' }));
    expect((await Promise.all(hostile)).map((r) => r.status)).toEqual([422, 422, 422, 422]);
    expect((await honest).status).toBe(201);
  });
});

describe('GraphQL queries that would stop the reactor', () => {
  const graphql = (query: string) => fetch(`${running.url}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query }) });

  it('a small query with 100 aliases over 30,000 items is refused before it runs, and static GETs keep answering beside heavy queries', async () => {
    const hostile = `{ ${Array.from({ length: 100 }, (_, i) => `a${i}: articles { id title }`).join(' ')} }`;
    expect(hostile.length).toBeLessThan(3000);
    let stop = false;
    const latencies: number[] = [];
    const poll = (async () => {
      while (!stop) {
        const started = Date.now();
        expect((await fetch(`${running.url}/css/style.css`)).status).toBe(200);
        latencies.push(Date.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const refusals = Promise.all(Array.from({ length: 10 }, async () => {
      const started = Date.now();
      const body = (await (await graphql(hostile)).json()) as { data?: unknown; errors: Array<{ extensions: { code: string } }> };
      return { took: Date.now() - started, data: body.data, code: body.errors[0]!.extensions.code };
    }));
    // The heaviest queries the limits let through, one after another: 15,000 articles, three fields each.
    const heavy = (async () => {
      const sizes: number[] = [];
      for (let i = 0; i < 3; i++) sizes.push(((await (await graphql(`{ articles(limit: 15000, offset: ${(i % 2) * 15000}) { id title tags } }`)).json()) as { data: { articles: unknown[] } }).data.articles.length);
      return sizes;
    })();
    const [refused, served] = await Promise.all([refusals, heavy]);
    stop = true;
    await poll;
    for (const outcome of refused) expect(outcome).toMatchObject({ data: undefined, code: 'QUERY_TOO_MANY_ALIASES' });
    expect(served).toEqual([15_000, 15_000, 15_000]);
    expect(latencies.length).toBeGreaterThan(3);
    // Generous, for a loaded machine: a heavy query holds the loop for a fraction of a second, not the 7 s an unbounded one did.
    expect(Math.max(...latencies)).toBeLessThan(5000);
    const whole = (await (await graphql('{ articles { id title tags } }')).json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(whole.errors[0]!.extensions.code).toBe('QUERY_TOO_COSTLY');
  });
});

describe('requests that once ended the process', () => {
  const raw = (request: string) => exchangeOnSocket(running.url, request);

  it('a package name spelled with %25 is a name like any other: 404, and the reactor answers on', async () => {
    for (const path of ['/package/%25/logs', '/package/%25/save', '/package/%2541/logs', '/package/%25/']) {
      const answer = await fetch(`${running.url}${path}`, { method: path.endsWith('save') ? 'POST' : 'GET' });
      expect([path, answer.status]).toEqual([path, 404]);
    }
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
    expect(running.stderr()).not.toMatch(/URIError|unexpected error/);
  });

  it('a client that pipelines a thousand requests in one write loses its connection, unanswered past 64; one that pipelines ten gets ten answers in order', async () => {
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    const flood = await raw(get('/css/style.css').repeat(1000));
    const answered = flood.match(/HTTP\/1\.1 200 OK/g) ?? [];
    expect(answered.length).toBeLessThanOrEqual(65);
    const paths = ['/', '/css/style.css', '/api/v1/data/articles/article-3', '/css/style.css', '/', '/api/v1/data/articles/article-4', '/', '/', '/css/style.css', '/api/v1/data/articles/article-5'];
    const pipelined = await raw(paths.map(get).join(''));
    const statuses = [...pipelined.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => match[1]);
    expect(statuses).toEqual(paths.map(() => '200'));
    expect([...pipelined.matchAll(/"id":"(article-\d+)"/g)].map((match) => match[1])).toEqual(['article-3', 'article-4', 'article-5']);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
  });

  it('a client that asks before sending a body over the limit (Expect: 100-continue) is refused without sending it; one within the limit is told to go on', async () => {
    const refused = await raw('POST /api/v1/data/articles HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2000000\r\n\r\n');
    expect(refused).toMatch(/^HTTP\/1\.1 413 [\s\S]*Connection: close[\s\S]*"BODY_TOO_LARGE"/);
    const item = JSON.stringify({ id: 'asked-first', title: 't', body: 'b' });
    expect(await raw(`POST /api/v1/data/articles HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${item.length}\r\n\r\n${item}`)).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });

  it('a client that half-closes once its request is sent (printf | nc -N) gets its answer', async () => {
    expect(await raw('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*<html/i);
    expect(await raw('GET /api/v1/data/articles/article-7 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*"id":"article-7"/);
    const body = JSON.stringify({ id: 'half-closed', title: 't', body: 'b' });
    expect(await raw(`POST /api/v1/data/articles HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`)).toMatch(/^HTTP\/1\.1 201 /);
    expect((await fetch(`${running.url}/api/v1/data/articles/half-closed`)).status).toBe(200);
  });
});

describe('a client that half-closes its connection once its request and body are sent', () => {
  // A fresh reactor: each kind of write below is its first, so its module loads before the body is read.
  let fresh: ServeProcess;
  beforeAll(async () => {
    cpSync(EXAMPLE_SITE, `${work.path}/half-closed-site`, { recursive: true });
    fresh = await startServe([`${work.path}/half-closed-site`, '--workdir', `${work.path}/half-closed-workdir`]);
  });
  afterAll(() => fresh.stop());
  const raw = (request: string) => exchangeOnSocket(fresh.url, request);

  it('has its body written: a content PUT, a dataset POST and a GraphQL query, each the first of its kind', async () => {
    const text = 'written by a client that half-closed';
    expect(await raw(`PUT /notes/half-closed.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: ${text.length}\r\n\r\n${text}`)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await (await fetch(`${fresh.url}/notes/half-closed.txt`)).text()).toBe(text);
    const item = JSON.stringify({ id: 'half-closed', title: 't', body: 'b' });
    expect(await raw(`POST /api/v1/data/articles HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${item.length}\r\n\r\n${item}`)).toMatch(/^HTTP\/1\.1 201 /);
    expect((await fetch(`${fresh.url}/api/v1/data/articles/half-closed`)).status).toBe(200);
    const query = JSON.stringify({ query: '{ __typename }' });
    expect(await raw(`POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${query.length}\r\n\r\n${query}`)).toMatch(/^HTTP\/1\.1 200 [\s\S]*"__typename":"Query"/);
    expect(fresh.stderr()).not.toMatch(/unexpected error/);
  });
});
