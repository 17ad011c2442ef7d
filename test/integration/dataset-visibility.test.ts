import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { startReactor } from '../support/reactor-fixture.js';

// A dataset whose data API route is restricted to a role keeps its name and schema, not only
// its data, from those without the role: in the mount's OpenAPI description, in GraphQL
// (introspection, queries and mutations) and in the introspection report of routes.

const basic = (user: string) => `Basic ${Buffer.from(`${user}:${user}-pw`).toString('base64')}`;
const sha = (user: string) => `${user}:{SHA}${createHash('sha1').update(`${user}-pw`).digest('base64')}`;

const directory = mkdtempSync(join(tmpdir(), 'dataset-visibility-'));
const deployFile = join(directory, 'deploy.json');

const DRAFT_SCHEMA = JSON.stringify({ type: 'object', properties: { id: { type: 'string' }, headline: { type: 'string' }, embargo: { type: 'object', properties: { until: { type: 'string' } } } } });
const datasets = {
  'data/news.json': JSON.stringify([{ id: 'n1', title: 'Open' }]),
  'data/drafts.json': JSON.stringify([{ id: 'd1', headline: 'Secret', embargo: { until: 'soon' } }]),
  'data/drafts.schema.json': DRAFT_SCHEMA,
  'storage.json': JSON.stringify({ storage: { dataSets: { news: { source: 'data/news.json' }, drafts: { source: 'data/drafts.json', schemaFile: 'data/drafts.schema.json', schemaType: 'json-schema' } } } }),
};

/** Staff site: basic auth; news for readers, drafts for editors. */
const staff = demoPackage({
  ...datasets,
  'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, passwdFile: 'auth/htpasswd' } } }),
  'auth/htpasswd': ['ann', 'bob', 'carl'].map(sha).join('\n') + '\n',
  'routes.json': JSON.stringify({
    routes: [
      { path: '/', resource: 'content/index.html' },
      { path: '/api/v1/data/news', dataset: 'news', accessControl: { roles: ['reader'] } },
      { path: '/api/v1/data/drafts', dataset: 'drafts', accessControl: { roles: ['editor'] } },
      { path: '/drafts', dataset: 'drafts' },
    ],
  }),
});

/** A site without authentication that still closes one dataset: anyone may look, and sees the open one only. */
const openSite = demoPackage({
  ...datasets,
  'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'open-site' }),
  'routes.json': JSON.stringify({
    routes: [
      { path: '/', resource: 'content/index.html' },
      { path: '/api/v1/data/news', dataset: 'news' },
      { path: '/api/v1/data/drafts', dataset: 'drafts', accessControl: { roles: ['editor'] } },
    ],
  }),
});

type Running = Awaited<ReturnType<typeof startReactor>>;
let staffReactor: Running;
let openReactor: Running;

beforeAll(async () => {
  writeFileSync(deployFile, JSON.stringify({ authentication: { sessionSecret: 'deploy-session-secret-0123456789', roles: { ann: ['editor', 'reader'], bob: ['reader'], dora: ['editor', 'reader'] } } }));
  staffReactor = await startReactor(new MemoryOpener().add('staff', staff), [{ source: 'staff' }], { deploy: deployFile });
  openReactor = await startReactor(new MemoryOpener().add('open', openSite), [{ source: 'open' }], { deploy: deployFile });
});
afterAll(async () => {
  await staffReactor?.stop();
  await openReactor?.stop();
  rmSync(directory, { recursive: true, force: true });
});

const SCHEMA_QUERY = { query: '{ __schema { queryType { fields { name } } mutationType { fields { name } } types { name } } }' };

/** What one requester is shown of the datasets, in each of the three places. */
async function shown(running: Running, authorization: string | undefined) {
  const get = (path: string) => {
    const call = request(running.http).get(path);
    return authorization ? call.set('Authorization', authorization) : call;
  };
  const post = (body: object) => {
    const call = request(running.http).post('/graphql').send(body);
    return authorization ? call.set('Authorization', authorization) : call;
  };
  const openapi = (await get('/api/v1/openapi.json').expect(200)).body;
  expect(await new Validator().validate(openapi)).toEqual({ valid: true });
  const graphql = (await post(SCHEMA_QUERY).expect(200)).body;
  const routes = (await get('/api/v1/introspect/routes').expect(200)).body;
  return {
    openapi,
    paths: Object.keys(openapi.paths),
    queries: graphql.data.__schema.queryType.fields.map((field: { name: string }) => field.name),
    mutations: (graphql.data.__schema.mutationType?.fields ?? []).map((field: { name: string }) => field.name),
    types: graphql.data.__schema.types.map((type: { name: string }) => type.name),
    routes: routes.routes[0].routes.map((route: { path: string }) => route.path),
    text: JSON.stringify([openapi, graphql, routes]),
  };
}

describe('a dataset restricted to a role, to a user with that role', () => {
  it('is described in OpenAPI, GraphQL and the routes report', async () => {
    const ann = await shown(staffReactor, basic('ann'));
    expect(ann.paths).toEqual(expect.arrayContaining(['/api/v1/data/news', '/api/v1/data/drafts', '/api/v1/data/drafts/{id}']));
    expect(ann.openapi.components.schemas.DraftsItem).toBeDefined();
    expect(ann.queries.sort()).toEqual(['drafts', 'news']);
    expect(ann.mutations).toEqual(expect.arrayContaining(['createDrafts', 'updateDrafts', 'deleteDrafts', 'createNews']));
    expect(ann.types).toEqual(expect.arrayContaining(['DraftsItem', 'DraftsItemEmbargo']));
    expect(ann.routes).toEqual(expect.arrayContaining(['/api/v1/data/news', '/api/v1/data/drafts', '/drafts']));
    const drafts = await request(staffReactor.http).post('/graphql').set('Authorization', basic('ann')).send({ query: '{ drafts { id headline } }' }).expect(200);
    expect(drafts.body.data.drafts).toEqual([{ id: 'd1', headline: 'Secret' }]);
  });
});

describe('a dataset restricted to a role, to a user without it', () => {
  it('is in none of the three: its name, paths, fields and types are left out, the rest kept', async () => {
    const bob = await shown(staffReactor, basic('bob'));
    expect(bob.paths).toEqual(['/api/v1/data/news', '/api/v1/data/news/{id}', '/api/v1/data/news/{id}/history']);
    expect(bob.queries).toEqual(['news']);
    expect(bob.mutations.sort()).toEqual(['createNews', 'deleteNews', 'updateNews']);
    expect(bob.routes).toContain('/api/v1/data/news');
    expect(bob.text).not.toMatch(/drafts|headline|embargo/i);
  });

  it('cannot be queried nor written through GraphQL, and no suggestion names it', async () => {
    for (const [query, asked] of [['{ drafts { id } }', 'drafts'], ['{ draft }', 'draft'], ['mutation { createDrafts(item: {id: "x"}) { id } }', 'createDrafts']] as const) {
      const answer = await request(staffReactor.http).post('/graphql').set('Authorization', basic('bob')).send({ query });
      expect(answer.body.errors.length).toBeGreaterThan(0);
      expect(answer.body.data ?? null).toBeNull();
      // Only the name the query itself spelled: no suggestion, no type of the dataset.
      expect(JSON.stringify(answer.body).replaceAll(`\\"${asked}\\"`, '')).not.toMatch(/drafts|headline/i);
    }
    expect((await request(staffReactor.http).get('/api/v1/data/drafts').set('Authorization', basic('bob'))).status).toBe(403);
  });

  it('leaves a user who may read none of them a GraphQL endpoint that refuses them as the data API does, and an empty description', async () => {
    const carl = (await request(staffReactor.http).get('/api/v1/openapi.json').set('Authorization', basic('carl')).expect(200)).body;
    expect(carl.paths).toEqual({});
    expect(JSON.stringify(carl)).not.toMatch(/drafts|news/i);
    const refused = await request(staffReactor.http).post('/graphql').set('Authorization', basic('carl')).send(SCHEMA_QUERY).expect(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(JSON.stringify(refused.body)).not.toMatch(/drafts|news/i);
    const routes = (await request(staffReactor.http).get('/api/v1/introspect/routes').set('Authorization', basic('carl')).expect(200)).body;
    expect(JSON.stringify(routes)).not.toMatch(/drafts|news/i);
  });
});

describe('a dataset restricted to a role, to an anonymous requester', () => {
  it('is challenged where the mount needs an identity', async () => {
    for (const path of ['/api/v1/openapi.json', '/api/v1/introspect/routes']) await request(staffReactor.http).get(path).expect(401);
    await request(staffReactor.http).post('/graphql').send(SCHEMA_QUERY).expect(401);
  });

  it('sees only the open datasets where the mount lets anyone look', async () => {
    const anonymous = await shown(openReactor, undefined);
    expect(anonymous.paths).toEqual(['/api/v1/data/news', '/api/v1/data/news/{id}', '/api/v1/data/news/{id}/history']);
    expect(anonymous.queries).toEqual(['news']);
    expect(anonymous.mutations.sort()).toEqual(['createNews', 'deleteNews', 'updateNews']);
    expect(anonymous.routes).toContain('/api/v1/data/news');
    expect(anonymous.text).not.toMatch(/drafts|headline|embargo/i);
    await request(openReactor.http).get('/api/v1/data/drafts').expect(401);
  });
});

describe('the routes report of several mounts', () => {
  it('shows each mount\'s restricted routes only to an identity that mount accepts, with the role', async () => {
    const two = demoPackage({ ...staff, 'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'staff-two' }), 'auth/htpasswd': sha('dora') + '\n' });
    const running = await startReactor(new MemoryOpener().add('staff', staff).add('two', two), [{ source: 'staff' }, { source: 'two', prefix: '/two' }], { deploy: deployFile });
    try {
      const report = async (user: string) => {
        const { routes } = (await request(running.http).get('/api/v1/introspect/routes').set('Authorization', basic(user)).expect(200)).body;
        return Object.fromEntries(routes.map((entry: { package: string; routes: Array<{ path: string }> }) => [entry.package, entry.routes.map((route) => route.path).filter((path) => /news|drafts/.test(path))]));
      };
      // ann is a user of the first mount only, dora of the second only: each proves nothing to the other.
      expect(await report('ann')).toEqual({ 'demo-site': ['/api/v1/data/news', '/api/v1/data/drafts', '/drafts'], 'staff-two': [] });
      expect(await report('dora')).toEqual({ 'demo-site': [], 'staff-two': ['/two/api/v1/data/news', '/two/api/v1/data/drafts', '/two/drafts'] });
      expect(await report('bob')).toEqual({ 'demo-site': ['/api/v1/data/news'], 'staff-two': [] });
    } finally {
      await running.stop();
    }
  });
});
