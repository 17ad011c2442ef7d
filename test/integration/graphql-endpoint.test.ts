import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import express from 'express';
import { getIntrospectionQuery, printSchema, type GraphQLSchema } from 'graphql';
import request from 'supertest';
import { MemoryPackageSource } from '../fakes/memory-package-source.js';
import { buildDatasetSchema } from '../../src/adapters/http/graphql/dataset-schema.js';
import { createGraphqlEndpoint } from '../../src/adapters/http/graphql/graphql-endpoint.js';
import { FixedClock } from '../fakes/fixed-clock.js';
import { AjvSchemaValidator } from '../../src/adapters/schema/ajv-schema-validator.js';
import { PackageDatasets } from '../../src/application/data/package-datasets.js';
import { readPackage } from '../../src/application/package/package-reader.js';
import { ReadOnlyError } from '../../src/domain/errors.js';
import { VALID_METADATA } from '../support/demo-package.js';
import { MemoryOverlayStore, type MemoryPackageOverlay } from '../fakes/memory-overlay-store.js';
import { MemorySqliteReader, memoryDatabase } from '../fakes/memory-sqlite-reader.js';

const POST_SCHEMA = {
  type: 'object',
  required: ['id', 'title'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    title: { type: 'string', minLength: 1 },
    views: { type: 'integer', minimum: 0, maximum: 1000000 },
    big: { type: 'integer', maximum: 10000000000 },
    rating: { type: ['number', 'null'] },
    published: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    meta: { type: 'object' },
    'bad-name': { type: 'string' },
  },
};
const P1 = { id: 'p1', title: 'Hello', views: 10, big: 5000000000, rating: 4.5, published: true, tags: ['a', 'b'], meta: { x: 1 }, 'bad-name': 'v' };
const P2 = { id: 'p2', title: 'Second', views: 3, tags: [] };

const sqlite = new MemorySqliteReader();

function packageFiles(metadata: Record<string, unknown> = {}): Record<string, string | Uint8Array> {
  return {
    'metadata.json': JSON.stringify({ ...VALID_METADATA, ...metadata }),
    'data/blog-posts.json': JSON.stringify([P1, P2]),
    'data/blog-posts.schema.json': JSON.stringify(POST_SCHEMA),
    'data/notes.json': JSON.stringify([{ text: 'first' }, { text: 'second' }]),
    'data/tasks.json': JSON.stringify([{ title: 'write' }, { title: 'test' }]),
    'data/tasks.schema.json': JSON.stringify({ type: 'object', additionalProperties: false, properties: { title: { type: 'string' }, done: { type: 'boolean' } } }),
    'data/settings.json': JSON.stringify({ theme: 'dark' }),
    'data/people.sqlite': memoryDatabase({ people: [{ id: 1, name: 'Ann' }] }),
    'storage.json': JSON.stringify({
      storage: {
        dataSets: {
          'blog-posts': { source: 'data/blog-posts.json', schemaFile: 'data/blog-posts.schema.json' },
          notes: { source: 'data/notes.json' },
          tasks: { source: 'data/tasks.json', schemaFile: 'data/tasks.schema.json' },
          settings: { source: 'data/settings.json' },
          people: { databaseFile: 'data/people.sqlite', table: 'people' },
        },
      },
    }),
  };
}

interface Loaded {
  app: express.Express;
  schema: GraphQLSchema | undefined;
  overlay: MemoryPackageOverlay;
  store: MemoryOverlayStore;
  datasets: PackageDatasets;
}

async function load(files: Record<string, string | Uint8Array>, options: { bodyLimit?: number } = {}): Promise<Loaded> {
  const source = new MemoryPackageSource(files);
  const model = await readPackage(source, { generate: 'serving' });
  const store = new MemoryOverlayStore();
  const overlay = store.at('/w', { path: '/', packageName: 'demo' });
  // The reactor refuses writes this way for a package whose metadata says readOnly.
  const refusal = model.metadata.readOnly === true ? new ReadOnlyError(`package ${model.metadata.name} is read-only`) : undefined;
  const { datasets } = await PackageDatasets.load(source, model, overlay, refusal, { schemas: new AjvSchemaValidator(), sqlite, clock: new FixedClock() });
  const schema = buildDatasetSchema(datasets, model.storage?.dataSets ?? {});
  const app = express();
  if (schema) app.use('/graphql', createGraphqlEndpoint(schema, options));
  return { app, schema, overlay, store, datasets };
}

interface GraphqlBody {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; path?: string[]; extensions?: { code?: string; details?: Array<{ path: string; message: string }> } }>;
}

async function gql(app: express.Express, query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: GraphqlBody }> {
  const response = await request(app).post('/graphql').send(variables ? { query, variables } : { query });
  return { status: response.status, body: response.body as GraphqlBody };
}

/** The operations of a dataset's log, each stamped with the test's clock. */
function logOf(overlay: MemoryPackageOverlay, dataset: string): unknown[] {
  return overlay
    .logText(dataset)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const { at, ...operation } = JSON.parse(line) as { at: string };
      expect(at).toBe('2025-01-01T00:00:00.000Z');
      return operation;
    });
}

let loaded: Loaded;
beforeEach(async () => {
  loaded = await load(packageFiles());
});
afterEach(() => loaded.datasets.close());

describe('schema derived from datasets', () => {
  it('has a list field and three mutations per JSON collection, named from dataset ids with "-"', () => {
    const printed = printSchema(loaded.schema!);
    expect(printed).toContain('blog_posts(id: ID, limit: Int, offset: Int, filter: JSON, q: String, sort: String): [BlogPostsItem!]');
    expect(printed).toContain('notes(id: ID, limit: Int, offset: Int, filter: JSON, q: String, sort: String): [JSON!]');
    expect(printed).toContain('tasks(id: ID, limit: Int, offset: Int, filter: JSON, q: String, sort: String): [TasksItem!]');
    expect(printed).toContain('createBlogPosts(item: JSON!): BlogPostsItem');
    expect(printed).toContain('updateBlogPosts(id: ID!, item: JSON!): BlogPostsItem');
    expect(printed).toContain('deleteBlogPosts(id: ID!): ID');
    expect(printed).toContain('createNotes(item: JSON!): JSON');
    expect(printed).toContain('updateNotes(id: ID!, item: JSON!): JSON');
  });

  it('types item fields from the JSON schema, with JSON for what GraphQL cannot type', () => {
    const type = loaded.schema!.getType('BlogPostsItem')!;
    const printed = printSchema(loaded.schema!);
    const block = printed.slice(printed.indexOf('type BlogPostsItem'), printed.indexOf('}', printed.indexOf('type BlogPostsItem')));
    expect(type).toBeDefined();
    for (const field of ['id: ID!', 'title: String', 'views: Int', 'big: Float', 'rating: Float', 'published: Boolean', 'tags: [String]', 'meta: JSON', '_json: JSON']) expect(block).toContain(field);
    expect(block).not.toContain('bad');
  });

  it('skips SQLite datasets, and serves a document dataset whole', async () => {
    const fields = Object.keys(loaded.schema!.getQueryType()!.getFields());
    expect(fields).toEqual(['blog_posts', 'notes', 'tasks', 'settings']);
    expect((await gql(loaded.app, '{ settings }')).body).toEqual({ data: { settings: { theme: 'dark' } } });
    const { status, body } = await gql(loaded.app, '{ people }');
    expect(status).not.toBe(500);
    expect(body.errors?.[0]?.message).toMatch(/Cannot query field "people"/);
  });

  it('is undefined when no dataset is outside SQLite', async () => {
    const files = packageFiles();
    const storage = { storage: { dataSets: { people: { databaseFile: 'data/people.sqlite', table: 'people' } } } };
    const only = await load({ ...files, 'storage.json': JSON.stringify(storage) });
    expect(only.schema).toBeUndefined();
    await only.datasets.close();
    const none = await load({ 'metadata.json': files['metadata.json']! });
    expect(none.schema).toBeUndefined();
  });

  it('gives colliding names a suffix so every dataset stays reachable', async () => {
    const files = {
      'metadata.json': JSON.stringify(VALID_METADATA),
      'data/a.json': JSON.stringify([{ id: 'x' }]),
      'data/b.json': JSON.stringify([{ id: 'y' }]),
      'storage.json': JSON.stringify({ storage: { dataSets: { 'a-b': { source: 'data/a.json' }, a_b: { source: 'data/b.json' } } } }),
    };
    const both = await load(files);
    expect(Object.keys(both.schema!.getQueryType()!.getFields())).toEqual(['a_b', 'a_b_2']);
    expect(Object.keys(both.schema!.getMutationType()!.getFields())).toEqual(['createAB', 'updateAB', 'deleteAB', 'createAB2', 'updateAB2', 'deleteAB2']);
    const { body } = await gql(both.app, '{ a_b a_b_2 }');
    expect(body.data).toEqual({ a_b: [{ id: 'x' }], a_b_2: [{ id: 'y' }] });
  });
});

describe('queries', () => {
  it('lists a dataset with typed fields and the whole item under _json', async () => {
    const { status, body } = await gql(loaded.app, '{ blog_posts { id title views big rating published tags meta _json } }');
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data!.blog_posts).toEqual([
      { id: 'p1', title: 'Hello', views: 10, big: 5000000000, rating: 4.5, published: true, tags: ['a', 'b'], meta: { x: 1 }, _json: P1 },
      { id: 'p2', title: 'Second', views: 3, big: null, rating: null, published: null, tags: [], meta: null, _json: P2 },
    ]);
  });

  it('answers one item by id, and ITEM_NOT_FOUND in errors for an unknown id', async () => {
    expect((await gql(loaded.app, '{ blog_posts(id: "p2") { id title } }')).body.data).toEqual({ blog_posts: [{ id: 'p2', title: 'Second' }] });
    const { status, body } = await gql(loaded.app, '{ blog_posts(id: "nope") { id } }');
    expect(status).toBe(200);
    expect(body.data).toEqual({ blog_posts: null });
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]!.message).toMatch(/no item nope/);
    expect(body.errors![0]!.extensions?.code).toBe('ITEM_NOT_FOUND');
  });

  it('pages with limit and offset, and refuses negative ones', async () => {
    expect((await gql(loaded.app, '{ blog_posts(limit: 1, offset: 1) { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p2' }] });
    expect((await gql(loaded.app, '{ blog_posts(limit: 1) { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p1' }] });
    expect((await gql(loaded.app, '{ blog_posts(offset: 5) { id } }')).body.data).toEqual({ blog_posts: [] });
    expect((await gql(loaded.app, '{ blog_posts(limit: -1) { id } }')).body.errors![0]!.extensions?.code).toBe('BAD_QUERY');
  });

  it('filters, searches and sorts as the REST API does, and refuses what it refuses', async () => {
    expect((await gql(loaded.app, '{ blog_posts(filter: {published: true}) { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p1' }] });
    expect((await gql(loaded.app, '{ blog_posts(filter: {views_lt: 5}) { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p2' }] });
    expect((await gql(loaded.app, '{ blog_posts(filter: {id: ["p1", "p2"]}, sort: "-views") { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p1' }, { id: 'p2' }] });
    expect((await gql(loaded.app, '{ blog_posts(sort: "views", limit: 1) { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p2' }] });
    expect((await gql(loaded.app, '{ blog_posts(q: "SECOND") { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p2' }] });
    expect((await gql(loaded.app, '{ notes(filter: {text_like: "irs"}) }')).body.data).toEqual({ notes: [{ text: 'first' }] });
    expect((await gql(loaded.app, '{ blog_posts(filter: {nope: 1}) { id } }')).body.errors![0]!.extensions?.code).toBe('UNKNOWN_FIELD');
    expect((await gql(loaded.app, '{ blog_posts(filter: {published: "maybe"}) { id } }')).body.errors![0]!.extensions?.code).toBe('BAD_QUERY');
    expect((await gql(loaded.app, '{ blog_posts(filter: {meta: {x: 1}}) { id } }')).body.errors![0]!.extensions?.code).toBe('BAD_QUERY');
    expect((await gql(loaded.app, '{ blog_posts(sort: "-nope") { id } }')).body.errors![0]!.extensions?.code).toBe('UNKNOWN_FIELD');
  });

  it('resolves the id of base items without an id field from their position', async () => {
    const { body } = await gql(loaded.app, '{ tasks { id title done _json } }');
    expect(body.data!.tasks).toEqual([
      { id: '1', title: 'write', done: null, _json: { title: 'write' } },
      { id: '2', title: 'test', done: null, _json: { title: 'test' } },
    ]);
    expect((await gql(loaded.app, '{ tasks(id: 2) { title } }')).body.data).toEqual({ tasks: [{ title: 'test' }] });
  });

  it('serves a schema-less dataset through the JSON scalar, literals of every kind included', async () => {
    expect((await gql(loaded.app, '{ notes }')).body.data).toEqual({ notes: [{ text: 'first' }, { text: 'second' }] });
    const created = await gql(loaded.app, 'mutation ($v: String) { createNotes(item: {text: "third", n: 3, f: 2.5, b: true, z: null, e: ENUMISH, l: [1, "two", {deep: [false]}], v: $v}) }', { v: 'from a variable' });
    const item = { text: 'third', n: 3, f: 2.5, b: true, z: null, e: 'ENUMISH', l: [1, 'two', { deep: [false] }], v: 'from a variable' };
    expect(created.body).toEqual({ data: { createNotes: item } });
    expect((await gql(loaded.app, '{ notes(id: "3") }')).body.data).toEqual({ notes: [item] });
    const replaced = await gql(loaded.app, 'mutation ($item: JSON!) { updateNotes(id: "1", item: $item) }', { item: { text: 'first, edited' } });
    expect(replaced.body.data).toEqual({ updateNotes: { text: 'first, edited' } });
  });

  it('keeps a __proto__ key of a literal as data', async () => {
    const { body } = await gql(loaded.app, 'mutation { createNotes(item: {text: "t", __proto__: {polluted: true}}) }');
    expect(body.errors).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(body.data!.createNotes)).toBe(Object.prototype);
  });
});

describe('mutations', () => {
  it('create, update and delete round-trip to the next query and to the overlay log', async () => {
    const created = await gql(loaded.app, 'mutation ($item: JSON!) { createBlogPosts(item: $item) { id title tags } }', { item: { id: 'p3', title: 'Third', tags: ['new'] } });
    expect(created.body).toEqual({ data: { createBlogPosts: { id: 'p3', title: 'Third', tags: ['new'] } } });
    expect((await gql(loaded.app, '{ blog_posts { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p1' }, { id: 'p2' }, { id: 'p3' }] });

    const updated = await gql(loaded.app, 'mutation { updateBlogPosts(id: "p3", item: {title: "Third, edited"}) { id title _json } }');
    expect(updated.body).toEqual({ data: { updateBlogPosts: { id: 'p3', title: 'Third, edited', _json: { id: 'p3', title: 'Third, edited' } } } });
    expect((await gql(loaded.app, '{ blog_posts(id: "p3") { title tags } }')).body.data).toEqual({ blog_posts: [{ title: 'Third, edited', tags: null }] });

    const deleted = await gql(loaded.app, 'mutation { deleteBlogPosts(id: "p1") }');
    expect(deleted.body).toEqual({ data: { deleteBlogPosts: 'p1' } });
    expect((await gql(loaded.app, '{ blog_posts { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p2' }, { id: 'p3' }] });

    expect(logOf(loaded.overlay, 'blog-posts')).toEqual([
      { op: 'create', id: 'p3', item: { id: 'p3', title: 'Third', tags: ['new'] } },
      { op: 'replace', id: 'p3', item: { id: 'p3', title: 'Third, edited' } },
      { op: 'delete', id: 'p1' },
    ]);
  });

  it('gives a created item without id the next free id, as REST does', async () => {
    const { body } = await gql(loaded.app, 'mutation { createTasks(item: {title: "ship"}) { id title _json } }');
    expect(body.data).toEqual({ createTasks: { id: '3', title: 'ship', _json: { title: 'ship' } } });
    expect(logOf(loaded.overlay, 'tasks')).toEqual([{ op: 'create', id: '3', item: { title: 'ship' } }]);
  });

  it('refuses an item with a number beyond a double, written out or in a variable, as INVALID_ITEM: it would read back as null', async () => {
    const literal = await gql(loaded.app, 'mutation { createTasks(item: {title: "big", n: 1e400}) { id } }');
    expect(literal.body.errors![0]!.extensions?.code).toBe('INVALID_ITEM');
    // As sent: JSON.stringify in the test would have made the number null already.
    const raw = '{"query": "mutation ($item: JSON!) { createTasks(item: $item) { id } }", "variables": {"item": {"title": "big", "n": [-1e999]}}}';
    const variable = await request(loaded.app).post('/graphql').set('Content-Type', 'application/json').send(raw);
    expect((variable.body as GraphqlBody).errors![0]!.extensions?.code).toBe('INVALID_ITEM');
    expect(logOf(loaded.overlay, 'tasks')).toEqual([]);
  });

  it('reports a duplicate id as DUPLICATE_ID', async () => {
    const { status, body } = await gql(loaded.app, 'mutation { createBlogPosts(item: {id: "p1", title: "again"}) { id } }');
    expect(status).toBe(200);
    expect(body.data).toEqual({ createBlogPosts: null });
    expect(body.errors![0]!.extensions?.code).toBe('DUPLICATE_ID');
    expect(body.errors![0]!.path).toEqual(['createBlogPosts']);
  });

  it('reports schema violations as SCHEMA_VIOLATION with every violation in details', async () => {
    const { status, body } = await gql(loaded.app, 'mutation { createBlogPosts(item: {id: "p9", title: 5, extra: 1}) { id } }');
    expect(status).toBe(200);
    const error = body.errors![0]!;
    expect(error.extensions?.code).toBe('SCHEMA_VIOLATION');
    expect(error.extensions?.details).toEqual(
      expect.arrayContaining([
        { path: '/title', message: 'must be string' },
        { path: '', message: 'must NOT have additional properties (extra)' },
      ]),
    );
    expect(logOf(loaded.overlay, 'blog-posts')).toEqual([]);
  });

  it('reports unknown ids, mismatched ids and non-object items with their codes', async () => {
    const cases: Array<[string, string]> = [
      ['mutation { updateBlogPosts(id: "nope", item: {title: "x"}) { id } }', 'ITEM_NOT_FOUND'],
      ['mutation { deleteBlogPosts(id: "nope") }', 'ITEM_NOT_FOUND'],
      ['mutation { updateBlogPosts(id: "p1", item: {id: "p2", title: "x"}) { id } }', 'ID_MISMATCH'],
      ['mutation { createNotes(item: [1, 2]) }', 'INVALID_ITEM'],
    ];
    for (const [query, code] of cases) {
      const { status, body } = await gql(loaded.app, query);
      expect(status).toBe(200);
      expect(body.errors?.[0]?.extensions?.code).toBe(code);
    }
    expect(logOf(loaded.overlay, 'blog-posts')).toEqual([]);
  });

  it('refuses writes to a read-only package with READ_ONLY and still answers queries', async () => {
    const readOnly = await load(packageFiles({ readOnly: true }));
    try {
      for (const query of ['mutation { createBlogPosts(item: {id: "p3", title: "x"}) { id } }', 'mutation { updateNotes(id: "1", item: {}) }', 'mutation { deleteTasks(id: "1") }']) {
        const { status, body } = await gql(readOnly.app, query);
        expect(status).toBe(200);
        expect(body.errors?.[0]?.extensions?.code).toBe('READ_ONLY');
      }
      expect((await gql(readOnly.app, '{ blog_posts { id } }')).body.data).toEqual({ blog_posts: [{ id: 'p1' }, { id: 'p2' }] });
      expect(readOnly.overlay.logBytes.size).toBe(0);
    } finally {
      await readOnly.datasets.close();
    }
  });

  it('hides unexpected failures behind "internal error" and writes them to stderr', async () => {
    loaded.store.failAppends = true;
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const response = await request(loaded.app).post('/graphql').send({ query: 'mutation { createNotes(item: {text: "x"}) }' });
      expect(response.status).toBe(200);
      expect(response.body.errors).toEqual([{ message: 'internal error', locations: expect.any(Array), path: ['createNotes'], extensions: { code: 'INTERNAL' } }]);
      expect(response.text).not.toContain('append failed');
      expect(stderr.mock.calls.map(([text]) => String(text)).join('')).toContain('append failed');
    } finally {
      stderr.mockRestore();
    }
  });

  it('leaves exactly one body intact when updates to one id race', async () => {
    const bodies = Array.from({ length: 8 }, (_, n) => ({ id: 'p2', title: `racer ${n}`, views: n, tags: Array.from({ length: n }, (_, t) => `t${t}`) }));
    const results = await Promise.all(bodies.map((item) => gql(loaded.app, 'mutation ($item: JSON!) { updateBlogPosts(id: "p2", item: $item) { id } }', { item })));
    for (const { body } of results) expect(body).toEqual({ data: { updateBlogPosts: { id: 'p2' } } });
    const final = (await gql(loaded.app, '{ blog_posts(id: "p2") { _json } }')).body.data!.blog_posts as Array<{ _json: unknown }>;
    expect(bodies).toContainEqual(final[0]!._json);
    const log = logOf(loaded.overlay, 'blog-posts') as Array<{ op: string; item: unknown }>;
    expect(log).toHaveLength(bodies.length);
    expect(log.at(-1)!.item).toEqual(final[0]!._json);
  });
});

describe('HTTP', () => {
  it('answers a GET with ?query=', async () => {
    const response = await request(loaded.app).get('/graphql').query({ query: '{ notes(limit: 1) }' }).expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({ data: { notes: [{ text: 'first' }] } });
  });

  it('refuses a mutation over GET and leaves the data alone', async () => {
    const response = await request(loaded.app).get('/graphql').query({ query: 'mutation { deleteBlogPosts(id: "p1") }' });
    expect(response.status).toBe(405);
    expect(response.body.errors[0].message).toMatch(/mutations over GET/);
    expect(logOf(loaded.overlay, 'blog-posts')).toEqual([]);
  });

  it('answers syntax errors in errors, never with a 500', async () => {
    const json = await request(loaded.app).post('/graphql').send({ query: '{ blog_posts {' });
    expect(json.status).toBe(200);
    expect(json.body.errors[0].message).toMatch(/Syntax Error/);
    const spec = await request(loaded.app).post('/graphql').set('Accept', 'application/graphql-response+json').send({ query: '{ blog_posts {' });
    expect(spec.status).toBe(400);
    expect(JSON.parse(spec.text).errors[0].message).toMatch(/Syntax Error/);
  });

  it('answers a body that is not JSON with 400 and one over the limit with 413, in the JSON error shape', async () => {
    const malformed = await request(loaded.app).post('/graphql').set('Content-Type', 'application/json').send('{"query": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('MALFORMED_JSON');
    const small = await load(packageFiles(), { bodyLimit: 100 });
    try {
      const large = await request(small.app).post('/graphql').send({ query: `{ notes } #${'x'.repeat(200)}` });
      expect(large.status).toBe(413);
      expect(large.body.error.code).toBe('BODY_TOO_LARGE');
    } finally {
      await small.datasets.close();
    }
  });

  it('answers requests that are not GraphQL requests with 4xx', async () => {
    expect((await request(loaded.app).post('/graphql').send([])).status).toBe(400);
    expect((await request(loaded.app).post('/graphql').send({})).status).toBe(400);
    const plain = await request(loaded.app).post('/graphql').set('Content-Type', 'text/plain').send('{ notes }');
    expect(plain.status).toBe(415);
    expect(plain.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await request(loaded.app).post('/graphql')).status).toBe(415);
    expect((await request(loaded.app).get('/graphql')).status).toBe(400);
    // What graphql-http refuses without a body gets the project's error body.
    const latin1 = await request(loaded.app).post('/graphql').set('Content-Type', 'application/json; charset=latin1').send('{"query":"{ notes }"}').expect(415);
    expect(latin1.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const xml = await request(loaded.app).post('/graphql').set('Accept', 'application/xml').send({ query: '{ notes }' }).expect(406);
    expect(xml.body.error).toEqual({ code: 'NOT_ACCEPTABLE', message: expect.stringMatching(/accepts neither/) });
    expect(xml.headers['accept']).toMatch(/application\/json/);
    // JSON that is no object: answered at once, not left for graphql-http to wait on a request read already.
    for (const scalar of ['"{ notes }"', 'null', '0', 'false']) {
      const answer = await request(loaded.app).post('/graphql').set('Content-Type', 'application/json').send(scalar).timeout(5000);
      expect([scalar, answer.status, answer.body.error.code]).toEqual([scalar, 400, 'MALFORMED_JSON']);
    }
  });

  it('picks the operation operationName names, and answers a name no operation has in errors (an operation without a name made it a 500)', async () => {
    const picked = await request(loaded.app).post('/graphql').send({ query: 'query A { notes } query B { blog_posts { id } }', operationName: 'B' });
    expect(picked.status).toBe(200);
    expect(Object.keys(picked.body.data as object)).toEqual(['blog_posts']);
    const answers: unknown[] = [];
    for (const query of ['{ notes }', 'query { notes }', 'query A { notes } { blog_posts { id } }', 'query A { notes }']) {
      const refused = await request(loaded.app).post('/graphql').send({ query, operationName: 'Nope' });
      answers.push([refused.status, refused.body.errors?.[0]?.message]);
    }
    const unknown = [200, 'Unable to detect operation AST'];
    expect(answers).toEqual([unknown, unknown, [200, 'This anonymous operation must be the only defined operation.'], unknown]);
  });

  it('answers HEAD as GET without the body (it was a 405 whose Allow named GET), other methods with 405 and Allow: GET, HEAD, POST', async () => {
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const page = await request(loaded.app).head('/graphql').set('Accept', browserAccept);
    expect([page.status, page.headers['content-type'], page.headers['content-length'], page.text]).toEqual([200, 'text/html; charset=utf-8', (await request(loaded.app).get('/graphql').set('Accept', browserAccept)).headers['content-length'], undefined]);
    const query = await request(loaded.app).head('/graphql?query=%7Bnotes%7D').set('Accept', 'application/json');
    expect([query.status, query.headers['content-type'], query.text]).toEqual([200, 'application/json; charset=utf-8', undefined]);
    for (const method of ['put', 'delete', 'patch'] as const) {
      const response = await request(loaded.app)[method]('/graphql');
      expect(response.status).toBe(405);
      expect(response.headers['allow']).toBe('GET, HEAD, POST');
      expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('serves GraphiQL, with a built-in form as fallback, to a browser', async () => {
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const response = await request(loaded.app).get('/graphql').set('Accept', browserAccept).expect(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['vary']).toBe('Accept');
    // GraphiQL from the reactor itself: every URL the page names is one of its files, on the same origin.
    const urls = [...response.text.matchAll(/\b(?:src|href|action)="([^"]*)"/g)].map(([, url]) => url!);
    expect(urls.sort()).toEqual(['/__pkg/graphiql/graphiql-4.1.2.min.css', '/__pkg/graphiql/graphiql-4.1.2.min.js', '/__pkg/graphiql/react-18.3.1.production.min.js', '/__pkg/graphiql/react-dom-18.3.1.production.min.js']);
    expect(response.text).not.toMatch(/\/\/|cdn|jsdelivr|unpkg|integrity|crossorigin/i);
    // Nor may anything load from elsewhere: the one inline script is allowed by its hash.
    const csp = response.headers['content-security-policy']!;
    expect(csp).toMatch(/^default-src 'self'; /);
    expect(csp).not.toMatch(/https?:|\*|unsafe-eval/);
    const scripts = [...response.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(([, body]) => body!);
    expect(scripts).toHaveLength(1);
    expect(csp).toContain(`script-src 'self' 'sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}'`);
    expect(response.text).toMatch(/<form id="fallback">[\s\S]*<textarea id="query"[\s\S]*<button type="submit">Run<\/button>/);
    // A client that asks for JSON as much as HTML, or for anything, gets GraphQL.
    const json = await request(loaded.app).get('/graphql').set('Accept', 'application/json').query({ query: '{ notes(limit: 1) }' }).expect(200);
    expect(json.body.data).toEqual({ notes: [{ text: 'first' }] });
    const any = await request(loaded.app).get('/graphql').set('Accept', '*/*').query({ query: '{ notes(limit: 1) }' }).expect(200);
    expect(any.body.data).toEqual({ notes: [{ text: 'first' }] });
  });
});

describe('query limits, checked before anything executes', () => {
  const many = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `n${i}`, title: `Title ${i}`, views: i, tags: ['x'] }));

  it('refuses more than 20 aliases, in the errors array', async () => {
    const query = `{ ${Array.from({ length: 21 }, (_, i) => `a${i}: blog_posts(limit: 1) { id }`).join(' ')} }`;
    const { body } = await gql(loaded.app, query);
    expect(body.data).toBeUndefined();
    expect(body.errors!.map((error) => error.extensions?.code)).toContain('QUERY_TOO_MANY_ALIASES');
    // GraphQL over HTTP: the newer media type answers a refused operation with 400.
    expect((await request(loaded.app).post('/graphql').set('Accept', 'application/graphql-response+json').send({ query })).status).toBe(400);
    expect((await gql(loaded.app, `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: blog_posts(limit: 1) { id }`).join(' ')} }`)).body.errors).toBeUndefined();
  });

  it('refuses a document of more than 10,000 tokens or 100 operations and fragments, before validating any', async () => {
    const operations = (count: number) => Array.from({ length: count }, (_, i) => `query Q${i} { blog_posts(limit: 1) { id } }`).join('\n');
    const tooMany = await request(loaded.app).post('/graphql').send({ query: operations(101), operationName: 'Q1' });
    expect(tooMany.body.errors.map((error: { extensions?: { code?: string } }) => error.extensions?.code)).toEqual(['QUERY_TOO_LARGE']);
    expect(tooMany.body.errors[0].message).toBe('the query holds 101 operations and fragments, more than the limit of 100');
    const huge = await request(loaded.app).post('/graphql').send({ query: operations(8000), operationName: 'Q1' });
    expect(huge.body.errors[0]).toMatchObject({ message: 'the query holds more than 10000 tokens', extensions: { code: 'QUERY_TOO_LARGE' } });
    expect((await request(loaded.app).post('/graphql').send({ query: operations(100), operationName: 'Q1' })).body.data).toEqual({ blog_posts: [expect.any(Object)] });
  });

  it('answers the introspection query tools send (GraphiQL), whatever its depth', async () => {
    const { body } = await gql(loaded.app, getIntrospectionQuery());
    expect(body.errors).toBeUndefined();
    expect((body.data!.__schema as { types: unknown[] }).types.length).toBeGreaterThan(5);
  });

  it('refuses queries nested deeper than the limit, through fragments too, and brace bombs before parsing', async () => {
    const fragments = Array.from({ length: 17 }, (_, i) => `fragment F${i} on Query { blog_posts { ...F${i + 1} } }`).join(' ');
    const deep = await gql(loaded.app, `{ ...F0 } ${fragments} fragment F17 on Query { notes }`);
    expect(deep.body.errors!.map((error) => error.extensions?.code)).toContain('QUERY_TOO_DEEP');
    const bomb = await request(loaded.app).post('/graphql').send({ query: `${'{a'.repeat(100_000)}${'}'.repeat(100_000)}` });
    expect(bomb.status).toBe(400);
    expect(bomb.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
    const bombGet = await request(loaded.app).get('/graphql').query({ query: `${'{a'.repeat(1000)}${'}'.repeat(1000)}` }).set('Accept', 'application/json');
    expect(bombGet.status).toBe(400);
    // graphql-http reads the first of two `query` parameters: that is the one checked.
    const twice = await request(loaded.app).get(`/graphql?query=${encodeURIComponent(`${'{a'.repeat(1000)}${'}'.repeat(1000)}`)}&query=%7Bnotes%7D`).set('Accept', 'application/json');
    expect(twice.status).toBe(400);
    expect(twice.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
  });

  it('refuses an operation that spells out more fields than can be estimated, without a 500', async () => {
    // Each fragment spreads the one before twice: 2^40 fields from a query of 2 KB. A check that walked each spread again would not finish.
    const fragments = Array.from({ length: 40 }, (_, i) => `fragment D${i + 1} on Query { ...D${i} ...D${i} }`).join(' ');
    const query = `{ ...D40 } fragment D0 on Query { notes } ${fragments}`;
    const { status, body } = await gql(loaded.app, query);
    expect(status).toBe(200);
    expect(body.data).toBeUndefined();
    expect(body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/too many fields to estimate/), extensions: { code: 'QUERY_TOO_COSTLY' } })]);
    // The endpoint still answers, and a spread kept small is served.
    expect((await gql(loaded.app, '{ ...D2 } fragment D0 on Query { notes(limit: 1) } fragment D1 on Query { ...D0 ...D0 } fragment D2 on Query { ...D1 ...D1 }')).body).toEqual({ data: { notes: [{ text: 'first' }] } });
  });

  it('refuses a query whose answer would pass 128 MiB of JSON, however few values it counts, and serves it in smaller parts', async () => {
    // 30 items of 1 MB: 30 values each time the list is asked for, 30 MB of JSON.
    const large = Array.from({ length: 30 }, (_, i) => ({ text: `${i}`.padEnd(1024 * 1024, 'x') }));
    const big = await load({ ...packageFiles(), 'data/notes.json': JSON.stringify(large) });
    try {
      const aliases = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: notes`).join(' ')} }`;
      const refused = await gql(big.app, aliases);
      expect(refused.status).toBe(200);
      expect(refused.body).toEqual({ errors: [{ message: expect.stringMatching(/more than 128 MiB of JSON/), extensions: { code: 'QUERY_TOO_COSTLY' } }] });
      const strict = await request(big.app).post('/graphql').set('Accept', 'application/graphql-response+json').send({ query: aliases });
      expect(strict.status).toBe(400);
      const three = await gql(big.app, '{ a: notes b: notes c: notes(limit: 1) }');
      expect(three.body.errors).toBeUndefined();
      expect((three.body.data!.b as unknown[]).length).toBe(30);
    } finally {
      await big.datasets.close();
    }
  });

  it('counts the elements of lists inside items, which the estimate sees as one value: past 100,000 a query is refused, a mutation keeps its writes', async () => {
    const schema = { type: 'object', properties: { id: { type: 'string' }, tags: { type: 'array', items: { type: 'object', properties: { a: { type: 'integer' } } } }, grid: { type: 'array', items: { type: 'array', items: { type: 'integer' } } } } };
    const tags = Array.from({ length: 10_000 }, (_, a) => ({ a }));
    const nested = await load({
      'metadata.json': JSON.stringify(VALID_METADATA),
      'data/lists.json': JSON.stringify([{ id: 'l1', tags, grid: [] }, { id: 'l2', tags, grid: [] }, { id: 'l3', tags: [], grid: Array.from({ length: 10 }, () => Array.from({ length: 12_000 }, (_, i) => i)) }]),
      'data/lists.schema.json': JSON.stringify(schema),
      'storage.json': JSON.stringify({ storage: { dataSets: { lists: { source: 'data/lists.json', schemaFile: 'data/lists.schema.json' } } } }),
    });
    try {
      // Estimated at 20 x 3 x 3 values, the answer would hold 20 x 40,000.
      const aliases = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: lists { id tags { a } }`).join(' ')} }`;
      expect((await gql(nested.app, aliases)).body).toEqual({ errors: [{ message: expect.stringMatching(/more than 100000 values, its lists counted/), extensions: { code: 'QUERY_TOO_COSTLY' } }] });
      // Lists in lists count every element.
      expect((await gql(nested.app, '{ lists(id: "l3") { grid } }')).body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY');
      const two = await gql(nested.app, '{ lists(limit: 2) { id tags { a } } }');
      expect(two.body.errors).toBeUndefined();
      expect((two.body.data!.lists as Array<{ tags: unknown[] }>).map((item) => item.tags.length)).toEqual([10_000, 10_000]);
      const created = await gql(nested.app, 'mutation($i: JSON!) { m1: createLists(item: $i) { id tags { a } } m2: createLists(item: $i) { id tags { a } } m3: createLists(item: $i) { id tags { a } } }', { i: { tags: [...tags, ...tags, ...tags, ...tags] } });
      expect(created.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'QUERY_TOO_COSTLY' } })]);
      expect(created.body.data).toMatchObject({ m1: { id: '4' }, m2: { id: '5', tags: null }, m3: { id: '6', tags: null } });
      expect(nested.datasets.get('lists').size).toBe(6);
    } finally {
      await nested.datasets.close();
    }
  });

  it('counts the scan a filter, search or sort makes of every item, however few rows it leaves', async () => {
    const big = await load({ ...packageFiles(), 'data/blog-posts.json': JSON.stringify(many(30_000)) });
    try {
      const values = Array.from({ length: 100 }, (_, i) => `"none${i}"`).join(', ');
      // Each alias weighs 30,000 items against 100 values and keeps nothing: 20 of them held the event loop for seconds.
      const scans = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: blog_posts(limit: 1, filter: {title_like: [${values}]}) { id }`).join(' ')} }`;
      const refused = await gql(big.app, scans);
      expect(refused.body.data).toBeUndefined();
      expect(refused.body.errors![0]).toMatchObject({ extensions: { code: 'QUERY_TOO_COSTLY' } });
      expect((await gql(big.app, `{ blog_posts(limit: 1, filter: {title_like: [${values}]}) { id } }`)).body).toEqual({ data: { blog_posts: [] } });
      const sorted = await gql(big.app, `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: blog_posts(limit: 1, sort: "${i % 2 ? '-' : ''}views", q: "Title") { id }`).join(' ')} }`);
      expect(sorted.body.errors).toBeUndefined();
    } finally {
      await big.datasets.close();
    }
  });

  it('refuses a result estimated past the limit, counting rows after limit and offset, aliases and fields', async () => {
    const big = await load({ ...packageFiles(), 'data/blog-posts.json': JSON.stringify(many(30_000)) });
    try {
      const half = await gql(big.app, '{ blog_posts(limit: 12000) { id title views tags } }');
      expect((half.body.data!.blog_posts as unknown[]).length).toBe(12_000);
      const costly = await gql(big.app, '{ blog_posts { id title views tags } }');
      expect(costly.body.data).toBeUndefined();
      expect(costly.body.errors![0]).toMatchObject({ message: expect.stringMatching(/about 120000 values, more than the limit of 50000/), extensions: { code: 'QUERY_TOO_COSTLY' } });
      const paged = await gql(big.app, `{ ${Array.from({ length: 5 }, (_, i) => `a${i}: blog_posts(limit: 100, offset: ${i * 100}) { id title }`).join(' ')} }`);
      expect(paged.body.errors).toBeUndefined();
      const twice = 'query($n: Int) { a: blog_posts(limit: $n) { id title } b: blog_posts(limit: $n) { id title } }';
      expect((await gql(big.app, twice, { n: 15_000 })).body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY');
      expect((await gql(big.app, twice, { n: 10 })).body.errors).toBeUndefined();
    } finally {
      await big.datasets.close();
    }
  });
});

describe('types from schemas other implementations write', () => {
  it('a document dataset (an object of lists) answers GraphQL, typed from its schema, integers as Int', async () => {
    const schema = {
      type: 'object',
      properties: {
        categories: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } },
        animals: { type: 'array', items: { $ref: '#/$defs/animal' } },
      },
      $defs: { animal: { type: 'object', properties: { name: { type: 'string' }, weight: { type: 'number' }, habitat: { type: 'object', properties: { biome: { type: 'string' } } } } } },
    };
    const zoo = await load({
      'metadata.json': JSON.stringify(VALID_METADATA),
      'data/zoo.json': JSON.stringify({ categories: [{ id: 1, name: 'Mammals' }], animals: [{ name: 'Lion', weight: 190.5, habitat: { biome: 'savannah' } }] }),
      'data/zoo.schema.json': JSON.stringify(schema),
      'storage.json': JSON.stringify({ storage: { dataSets: { zoo: { source: 'data/zoo.json', schemaFile: 'data/zoo.schema.json' } } } }),
    });
    try {
      const printed = printSchema(zoo.schema!);
      expect(printed).toContain('zoo: ZooDocument');
      expect(printed).toMatch(/type ZooDocumentCategories \{\n {2}id: Int\n {2}name: String\n\}/);
      expect(printed).toMatch(/type ZooDocumentAnimals \{\n {2}name: String\n {2}weight: Float\n {2}habitat: ZooDocumentAnimalsHabitat\n\}/);
      expect(printed).not.toContain('type Mutation');
      const answer = await gql(zoo.app, '{ zoo { categories { id name } animals { name weight habitat { biome } } } }');
      expect(answer.body).toEqual({ data: { zoo: { categories: [{ id: 1, name: 'Mammals' }], animals: [{ name: 'Lion', weight: 190.5, habitat: { biome: 'savannah' } }] } } });
    } finally {
      await zoo.datasets.close();
    }
  });

  it('a schema that refers to itself (a tree, $ref "#") gets types that refer to themselves, not a type per level', async () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' }, title: { type: 'string' }, parent: { $ref: '#' }, tree: { $ref: '#/definitions/node' } },
      definitions: { node: { type: 'object', properties: { label: { type: 'string' }, child: { $ref: '#/definitions/node' }, kids: { type: 'array', items: { $ref: '#/definitions/node' } } } } },
    };
    const nested = await load({
      'metadata.json': JSON.stringify(VALID_METADATA),
      'data/docs.json': JSON.stringify([{ id: 'd1', title: 'root', parent: { title: 'up', parent: { title: 'top' } }, tree: { label: 'a', child: { label: 'b', kids: [{ label: 'c' }] } } }]),
      'data/docs.schema.json': JSON.stringify(schema),
      'storage.json': JSON.stringify({ storage: { dataSets: { docs: { source: 'data/docs.json', schemaFile: 'data/docs.schema.json' } } } }),
    });
    try {
      const printed = printSchema(nested.schema!);
      expect(printed).toMatch(/type DocsItemTree \{\n {2}label: String\n {2}child: DocsItemTree\n {2}kids: \[DocsItemTree\]\n\}/);
      expect(printed).toMatch(/type DocsItemParent \{\n {2}id: String\n {2}title: String\n {2}parent: DocsItemParent\n {2}tree: DocsItemTree\n\}/);
      const answer = await gql(nested.app, '{ docs { title parent { title parent { title } } tree { label child { label kids { label } } } } }');
      expect(answer.body).toEqual({ data: { docs: [{ title: 'root', parent: { title: 'up', parent: { title: 'top' } }, tree: { label: 'a', child: { label: 'b', kids: [{ label: 'c' }] } } }] } });
    } finally {
      await nested.datasets.close();
    }
  });

  it('an array schema whose items refer back to it gets a list of JSON, not a 500 on every request', async () => {
    const schema = { type: 'object', properties: { id: { type: 'string' }, grid: { $ref: '#/definitions/nested' } }, definitions: { nested: { type: 'array', items: { $ref: '#/definitions/nested' } } } };
    const nested = await load({
      'metadata.json': JSON.stringify(VALID_METADATA),
      'data/grids.json': JSON.stringify([{ id: 'g', grid: [[], [[]]] }]),
      'data/grids.schema.json': JSON.stringify(schema),
      'data/shape.json': JSON.stringify({ rows: [[1]] }),
      'data/shape.schema.json': JSON.stringify({ type: 'object', properties: { rows: { $ref: '#/$defs/rows' } }, $defs: { rows: { type: 'array', items: { $ref: '#/$defs/rows' } } } }),
      'storage.json': JSON.stringify({ storage: { dataSets: { grids: { source: 'data/grids.json', schemaFile: 'data/grids.schema.json' }, shape: { source: 'data/shape.json', schemaFile: 'data/shape.schema.json' } } } }),
    });
    try {
      const printed = printSchema(nested.schema!);
      expect(printed).toMatch(/\n {2}grid: \[JSON\]\n/);
      expect(printed).toMatch(/type ShapeDocument \{\n {2}rows: \[JSON\]\n\}/);
      expect((await gql(nested.app, '{ grids { id grid } shape { rows } }')).body).toEqual({ data: { grids: [{ id: 'g', grid: [[], [[]]] }], shape: { rows: [[1]] } } });
    } finally {
      await nested.datasets.close();
    }
  });

  it('a document of long lists costs what its lists hold', async () => {
    const big = await load({
      'metadata.json': JSON.stringify(VALID_METADATA),
      'data/zoo.json': JSON.stringify({ animals: Array.from({ length: 30_000 }, (_, i) => ({ name: `a${i}`, weight: i })) }),
      'data/zoo.schema.json': JSON.stringify({ type: 'object', properties: { animals: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, weight: { type: 'number' } } } } } }),
      'storage.json': JSON.stringify({ storage: { dataSets: { zoo: { source: 'data/zoo.json', schemaFile: 'data/zoo.schema.json' } } } }),
    });
    try {
      expect((await gql(big.app, '{ zoo { animals { name weight } } }')).body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY');
    } finally {
      await big.datasets.close();
    }
  });

  it('a schema of the whole collection types its items and checks writes against them', async () => {
    const notes = await load({
      'metadata.json': JSON.stringify(VALID_METADATA),
      'data/notes.json': JSON.stringify([{ id: 'a', title: 'A', minutes: 3, weather: { wind: 'calm' } }]),
      'data/notes.schema.json': JSON.stringify({ type: 'array', items: { type: 'object', required: ['title'], additionalProperties: false, properties: { id: { type: 'string' }, title: { type: 'string' }, minutes: { type: 'integer' }, weather: { type: 'object', properties: { wind: { type: 'string' } } } } } }),
      'storage.json': JSON.stringify({ storage: { dataSets: { notes: { source: 'data/notes.json', schemaFile: 'data/notes.schema.json' } } } }),
    });
    try {
      expect(printSchema(notes.schema!)).toMatch(/notes\(id: ID, limit: Int, offset: Int, filter: JSON, q: String, sort: String\): \[NotesItem!\]/);
      expect((await gql(notes.app, '{ notes { id minutes weather { wind } } }')).body).toEqual({ data: { notes: [{ id: 'a', minutes: 3, weather: { wind: 'calm' } }] } });
      expect((await gql(notes.app, 'mutation { createNotes(item: {id: "b", title: "B"}) { id title } }')).body).toEqual({ data: { createNotes: { id: 'b', title: 'B' } } });
      expect((await gql(notes.app, 'mutation { createNotes(item: {id: "c", extra: 1}) { id } }')).body.errors![0]!.extensions!.code).toBe('SCHEMA_VIOLATION');
    } finally {
      await notes.datasets.close();
    }
  });
});
