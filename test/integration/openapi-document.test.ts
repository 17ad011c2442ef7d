import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { demoPackage } from '../support/demo-package.js';
import { startReactor } from '../support/reactor-fixture.js';
import { draft04As2020 } from '../../src/domain/data/draft04-schema.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document, read field by field
type OpenApi = Record<string, any>;

/**
 * The shape OpenAPI 3.1 asks of what the reactor writes (§4.8): the fields a client
 * generator reads, component names of the allowed characters, parameters with a location
 * and path parameters required. The rules no JSON schema can say are checked below it.
 */
const OPENAPI_SHAPE = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object', required: ['title', 'version'], properties: { title: { type: 'string' }, version: { type: 'string' } } },
    servers: { type: 'array', items: { type: 'object', required: ['url'] } },
    paths: { type: 'object', propertyNames: { pattern: '^/' }, additionalProperties: { $ref: '#/$defs/pathItem' } },
    components: { type: 'object', properties: { schemas: { type: 'object', propertyNames: { pattern: '^[A-Za-z0-9._-]+$' } } } },
  },
  $defs: {
    pathItem: { type: 'object', propertyNames: { enum: ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'parameters', 'summary', 'description', 'servers'] }, additionalProperties: { $ref: '#/$defs/operation' } },
    operation: {
      type: 'object',
      required: ['responses'],
      properties: {
        parameters: { type: 'array', items: { $ref: '#/$defs/parameter' } },
        responses: { type: 'object', minProperties: 1, propertyNames: { pattern: '^([1-5]\\d\\d|[1-5]XX|default)$' }, additionalProperties: { type: 'object', required: ['description'] } },
      },
    },
    parameter: {
      type: 'object',
      required: ['name', 'in'],
      properties: { name: { type: 'string', minLength: 1 }, in: { enum: ['query', 'header', 'path', 'cookie'] } },
      if: { properties: { in: { const: 'path' } } },
      then: { required: ['required'], properties: { required: { const: true } } },
    },
  },
};

/** Every `$ref` of the document, as [where, ref]. */
function refsOf(value: unknown, at = '#'): Array<[string, string]> {
  if (Array.isArray(value)) return value.flatMap((entry, index) => refsOf(entry, `${at}/${index}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, entry]) => (key === '$ref' && typeof entry === 'string' ? [[at, entry] as [string, string]] : refsOf(entry, `${at}/${key}`)));
}

/** What a local `$ref` points at in the document, or undefined. */
function resolve(document: OpenApi, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), document);
}

/** Parameters given twice in an operation: OpenAPI 3.1 §4.8.10.1 wants each name and location once. */
function duplicateParameters(document: OpenApi): string[] {
  const problems: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>)) {
    for (const [method, operation] of Object.entries(item)) {
      const seen = new Set<string>();
      for (const { name, in: place } of operation.parameters ?? []) {
        if (seen.has(`${place} ${name}`)) problems.push(`${method} ${path}: parameter ${name} in ${place} twice`);
        seen.add(`${place} ${name}`);
      }
    }
  }
  return problems;
}

/** References that reach nothing, or the whole document rather than a schema in it. */
function danglingRefs(document: OpenApi): string[] {
  return refsOf(document)
    .filter(([, ref]) => ref === '#' || resolve(document, ref) === undefined)
    .map(([where, ref]) => `${where}: $ref ${ref} does not reach a schema of the document`);
}

const treeSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    // Names the query reads otherwise: a reserved parameter, an operator's suffix, a dotted path.
    page: { type: 'integer' },
    sort: { type: 'string' },
    price_gte: { type: 'number' },
    'a.b': { type: 'string' },
    // A tree: each child is an item again.
    children: { type: 'array', items: { $ref: '#' } },
    label: { $ref: '#/properties/name' },
    kind: { $ref: '#/$defs/kind' },
    mode: { $ref: '#/$defs/a%20b' },
  },
  $defs: { kind: { enum: ['leaf', 'node'] }, 'a b': { type: 'string' } },
};

const site = demoPackage({
  'data/tree.json': JSON.stringify([{ id: 'root', name: 'r', children: [] }]),
  'data/tree.schema.json': JSON.stringify(treeSchema),
  // Another dataset whose name differs only in case: its items have no schema.
  'data/Tree.json': JSON.stringify([{ id: 'x' }]),
  'storage.json': JSON.stringify({
    storage: { dataSets: { tree: { source: 'data/tree.json', schemaFile: 'data/tree.schema.json', schemaType: 'json-schema' }, Tree: { source: 'data/Tree.json' } } },
  }),
});

let fixture: Awaited<ReturnType<typeof startReactor>>;
let http: ReturnType<typeof request>;
let document: OpenApi;

beforeAll(async () => {
  fixture = await startReactor(new MemoryOpener().add('site', site), [{ source: 'site' }]);
  http = request(fixture.http);
  const answer = await http.get('/api/v1/openapi.json');
  expect(answer.status).toBe(200);
  document = JSON.parse(answer.text) as OpenApi;
});
afterAll(() => fixture.stop());

describe('the OpenAPI document of a mount', () => {
  it('has the shape OpenAPI 3.1 requires, and references that resolve', () => {
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(OPENAPI_SHAPE);
    expect([validate(document), validate.errors ?? []]).toEqual([true, []]);
    expect(danglingRefs(document)).toEqual([]);
  });

  it('describes each dataset by its own schema, whatever their names', () => {
    const schemaOf = (path: string) => resolve(document, document.paths[path].get.responses['200'].content['application/json'].schema.items.$ref) as OpenApi;
    expect(schemaOf('/api/v1/data/tree').properties).toHaveProperty('children');
    expect(schemaOf('/api/v1/data/Tree').properties).toBeUndefined();
    const tree = schemaOf('/api/v1/data/tree');
    expect(resolve(document, tree.properties.children.items.$ref)).toBe(tree);
    expect(resolve(document, tree.properties.label.$ref)).toEqual({ type: 'string' });
    expect(resolve(document, tree.properties.kind.$ref)).toEqual({ enum: ['leaf', 'node'] });
    expect(resolve(document, tree.properties.mode.$ref)).toEqual({ type: 'string' });
  });

  it('lists as filters only the fields a query can name, and each filter it lists is answered', async () => {
    const names: string[] = document.paths['/api/v1/data/tree'].get.parameters.map((parameter: { name: string }) => parameter.name);
    expect(duplicateParameters(document)).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['name', 'name_like', 'page', 'sort']));
    expect(names.filter((name) => name.startsWith('a.b') || name.startsWith('price_gte'))).toEqual([]);
    for (const name of names.filter((one) => one.startsWith('name'))) expect([name, (await http.get(`/api/v1/data/tree?${name}=r`)).status]).toEqual([name, 200]);
  });

  it('gives each write the status the server answers it with', async () => {
    const statuses = (path: string, method: string) => Object.keys(document.paths[path][method].responses);
    const json = (test: request.Test, body: unknown) => test.set('Content-Type', 'application/json').set('Sec-Fetch-Site', 'same-origin').send(JSON.stringify(body));
    const answers = [
      ['post', '/api/v1/data/tree', (await json(http.post('/api/v1/data/tree'), { id: 'n1', name: 7 })).status],
      ['post', '/api/v1/data/tree', (await json(http.post('/api/v1/data/tree'), { id: 'root' })).status],
      ['put', '/api/v1/data/tree/{id}', (await json(http.put('/api/v1/data/tree/root'), { id: 'other' })).status],
      ['put', '/api/v1/data/tree/{id}', (await json(http.put('/api/v1/data/tree/root'), { id: 'root', name: 7 })).status],
      ['put', '/api/v1/data/tree/{id}', (await json(http.put('/api/v1/data/tree/root'), { id: 'root', name: 'r' })).status],
      ['get', '/api/v1/data/tree/{id}', (await http.get('/api/v1/data/tree/nobody')).status],
      ['delete', '/api/v1/data/tree/{id}', (await http.delete('/api/v1/data/tree/root').set('Sec-Fetch-Site', 'same-origin')).status],
    ] as const;
    expect(answers.map(([, , status]) => status)).toEqual([422, 409, 409, 422, 200, 404, 204]);
    for (const [method, path, status] of answers) expect([method, path, statuses(path, method)]).toEqual([method, path, expect.arrayContaining([String(status)])]);
    // A status the document gives names the codes that come with it.
    expect(document.paths['/api/v1/data/tree/{id}'].put.responses['409'].description).toMatch(/ID_MISMATCH/);
    expect(document.paths['/api/v1/data/tree/{id}'].put.responses['422'].description).toMatch(/SCHEMA_VIOLATION/);
    expect(document.paths['/api/v1/data/tree'].post.responses['400'].description).not.toMatch(/ID_MISMATCH|SCHEMA_VIOLATION/);
  });
});

describe('a draft-04 dataset schema in the OpenAPI document', () => {
  it('is written as 2020-12 reads it: an exclusive bound as the bound itself, no `id`; data and property names untouched', () => {
    const draft04 = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      id: 'http://example.org/item.json',
      type: 'object',
      properties: {
        id: { type: 'string' },
        rank: { type: 'integer', minimum: 0, exclusiveMinimum: false, maximum: 10, exclusiveMaximum: true },
        level: { enum: [{ maximum: 1, exclusiveMaximum: true }] },
      },
    };
    const written = draft04As2020(draft04) as { properties: Record<string, unknown> };
    expect(written).not.toHaveProperty('id');
    expect(written.properties).toEqual({ id: { type: 'string' }, rank: { type: 'integer', minimum: 0, exclusiveMaximum: 10 }, level: { enum: [{ maximum: 1, exclusiveMaximum: true }] } });
    const { $schema: _draft, ...rest } = written as Record<string, unknown>;
    const ajv = new Ajv2020({ strict: false });
    expect([ajv.validateSchema(rest), ajv.errors ?? []]).toEqual([true, []]);
    // As written, 2020-12 refuses it.
    expect(ajv.validateSchema(draft04.properties.rank)).toBe(false);
  });
});
