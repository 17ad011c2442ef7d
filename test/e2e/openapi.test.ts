import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { writePackage } from '../support/composite-fixtures.js';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

jest.setTimeout(60_000);

const work = temporaryDirectory('cap-openapi-');
let running: ServeProcess;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document, read field by field
type OpenApi = Record<string, any>;

beforeAll(async () => {
  // The example site (articles, with a schema) at /, and a package whose datasets are a
  // schema with local definitions, a list without schema and one document, at /more/.
  const more = writePackage(join(work.path, 'more'), { name: 'more', version: '2.1.0', guid: 'pkg://example.org/more' }, {
    'content/index.html': '<p>more</p>',
    'data/books.json': JSON.stringify([{ id: 'b1', title: 'T', author: { name: 'A' } }]),
    'data/books.schema.json': JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' }, pages: { type: 'integer' }, author: { $ref: '#/definitions/person' } }, definitions: { person: { type: 'object', properties: { name: { type: 'string' } } } } }),
    'data/notes.json': JSON.stringify([{ text: 'x' }]),
    'data/settings.json': JSON.stringify({ theme: 'dark' }),
    'storage.json': JSON.stringify({ storage: { dataSets: { books: { source: 'data/books.json', schemaFile: 'data/books.schema.json', schemaType: 'json-schema' }, notes: { source: 'data/notes.json' }, settings: { source: 'data/settings.json' } } } }),
  });
  cpSync(EXAMPLE_SITE, join(work.path, 'site'), { recursive: true });
  running = await startServe([join(work.path, 'site'), more]);
});
afterAll(async () => {
  await running?.stop();
  work.remove();
});

async function documentAt(prefix: string): Promise<OpenApi> {
  const answer = await fetch(`${running.url}${prefix}api/v1/openapi.json`);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  return (await answer.json()) as OpenApi;
}

describe('the OpenAPI description of a mount', () => {
  it('is a valid OpenAPI 3.1 document listing every dataset of the mount, and only those', async () => {
    for (const [prefix, datasets] of [['/', ['articles']], ['/more/', ['books', 'notes', 'settings']]] as const) {
      const document = await documentAt(prefix);
      const validator = new Validator();
      const result = await validator.validate(document);
      expect([prefix, result.valid, result.errors]).toEqual([prefix, true, undefined]);
      expect(document.openapi).toBe('3.1.0');
      const listed = Object.keys(document.paths).filter((path) => /^\/api\/v1\/data\/[^/]+$/.test(path)).map((path) => path.split('/').pop());
      expect(listed.sort()).toEqual([...datasets]);
    }
  });

  it('describes items by their schema, queries by their fields, conditional headers and error codes', async () => {
    const document = await documentAt('/');
    expect(document.info).toMatchObject({ title: 'example-site data API', version: '1.0.0' });
    const collection = document.paths['/api/v1/data/articles'];
    const names = collection.get.parameters.map((parameter: { name: string }) => parameter.name);
    expect(names).toEqual(expect.arrayContaining(['q', 'sort', 'limit', 'offset', 'page', 'per_page', 'at', 'title', 'title_like', 'title_ne', 'If-None-Match']));
    expect(collection.get.responses['200'].headers).toHaveProperty('X-Total-Count');
    expect(collection.get.responses['400'].description).toMatch(/UNKNOWN_FIELD/);
    expect(collection.post.responses['409'].description).toMatch(/DUPLICATE_ID/);
    const item = document.paths['/api/v1/data/articles/{id}'];
    expect(item.put.parameters.map((parameter: { name: string }) => parameter.name)).toContain('If-Match');
    expect(item.put.responses['412'].description).toMatch(/PRECONDITION_FAILED/);
    expect(document.paths['/api/v1/data/articles/{id}/history'].get.responses['200']).toBeDefined();
    expect(document.components.schemas.ArticlesItem).toMatchObject({ required: ['id', 'title', 'body'], properties: { title: { type: 'string' } } });
    expect(document.components.schemas.ArticlesItem.$schema).toBeUndefined();

    const more = await documentAt('/more/');
    expect(more.servers).toEqual([{ url: '/more' }]);
    expect(more.components.schemas.BooksItem.properties.author).toEqual({ $ref: '#/components/schemas/BooksItem_person' });
    expect(more.components.schemas.BooksItem_person).toMatchObject({ properties: { name: { type: 'string' } } });
    expect(more.paths['/api/v1/data/settings'].post).toBeUndefined();
  });

  it('leaves writes out of a read-only package\'s description', async () => {
    const readOnly = await startServe([EXAMPLE_SITE, '--read-only']);
    try {
      const document = (await (await fetch(`${readOnly.url}/api/v1/openapi.json`)).json()) as OpenApi;
      expect(document.paths['/api/v1/data/articles'].post).toBeUndefined();
      expect(document.paths['/api/v1/data/articles/{id}'].put).toBeUndefined();
      expect(document.paths['/api/v1/data/articles/{id}'].get).toBeDefined();
    } finally {
      await readOnly.stop();
    }
  });
});
