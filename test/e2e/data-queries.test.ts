import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { join } from 'node:path';
import { writePackage } from '../support/composite-fixtures.js';
import { temporaryDirectory } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

jest.setTimeout(60_000);

const work = temporaryDirectory('cap-queries-');
let running: ServeProcess;

const people = [
  { id: 'ann', name: 'Ann', age: 54, active: true, address: { city: 'Paris' } },
  { id: 'bob', name: 'Bob', age: 31, active: false, address: { city: 'Lyon' } },
  { id: 'cid', name: 'Cid', age: 54, active: true, address: { city: 'Oslo' } },
  { id: 'dee', name: 'Dee', age: 22, active: true, address: { city: 'Paris' } },
  { id: 'eve', name: 'Eve', age: 67, active: false, address: { city: 'Rome' } },
];

beforeAll(async () => {
  const schema = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' }, age: { type: 'integer' }, active: { type: 'boolean' }, address: { type: 'object', properties: { city: { type: 'string' } } } } };
  const site = writePackage(join(work.path, 'site'), { name: 'people', version: '1.0.0', guid: 'pkg://example.org/people' }, {
    'content/index.html': '<p>people</p>',
    'data/people.json': JSON.stringify(people),
    'data/plain.json': JSON.stringify([{ n: 2, tag: 'x' }, { n: 10, tag: 'y' }, { n: 2, tag: 'z' }]),
    'data/people.schema.json': JSON.stringify(schema),
    'storage.json': JSON.stringify({ storage: { dataSets: { people: { source: 'data/people.json', schemaFile: 'data/people.schema.json', schemaType: 'json-schema' }, plain: { source: 'data/plain.json' } } } }),
  });
  running = await startServe([site]);
});
afterAll(async () => {
  await running?.stop();
  work.remove();
});

const query = async (search: string, dataset = 'people') => {
  const answer = await fetch(`${running.url}/api/v1/data/${dataset}?${search}`);
  const body = (await answer.json()) as unknown;
  return { status: answer.status, body, total: answer.headers.get('x-total-count'), link: answer.headers.get('link') };
};
const ids = async (search: string) => ((await query(search)).body as Array<{ id: string }>).map((item) => item.id);

describe('collection queries', () => {
  it('filters by field, typed by the schema, with json-server\'s operators, dotted paths and full text', async () => {
    expect(await ids('active=true')).toEqual(['ann', 'cid', 'dee']);
    expect(await ids('age=54')).toEqual(['ann', 'cid']);
    expect(await ids('age_gte=30&age_lt=60')).toEqual(['ann', 'bob', 'cid']);
    expect(await ids('age_gt=54')).toEqual(['eve']);
    expect(await ids('age_lte=31')).toEqual(['bob', 'dee']);
    expect(await ids('name_ne=Ann&active=true')).toEqual(['cid', 'dee']);
    expect(await ids('name_like=E')).toEqual(['dee', 'eve']);
    expect(await ids('name=Ann&name=Bob')).toEqual(['ann', 'bob']);
    expect(await ids('address.city=Paris')).toEqual(['ann', 'dee']);
    expect(await ids('q=paris')).toEqual(['ann', 'dee']);
    expect((await query('active=true')).total).toBe('3');
  });

  it('sorts stably, ascending or with - descending, on several keys', async () => {
    expect(await ids('sort=-age')).toEqual(['eve', 'ann', 'cid', 'bob', 'dee']);
    expect(await ids('sort=age,-name')).toEqual(['dee', 'bob', 'cid', 'ann', 'eve']);
    expect(await ids('sort=address.city,id')).toEqual(['bob', 'cid', 'ann', 'dee', 'eve']);
  });

  it('pages with limit/offset or page/per_page, counting what matched, with Link headers', async () => {
    const first = await query('sort=id&page=1&per_page=2');
    expect((first.body as Array<{ id: string }>).map((item) => item.id)).toEqual(['ann', 'bob']);
    expect(first.total).toBe('5');
    expect(first.link).toBe('</api/v1/data/people?sort=id&page=1&per_page=2>; rel="first", </api/v1/data/people?sort=id&page=2&per_page=2>; rel="next", </api/v1/data/people?sort=id&page=3&per_page=2>; rel="last"');
    const middle = await query('sort=id&page=2&per_page=2');
    expect(middle.link).toContain('page=1&per_page=2>; rel="prev"');
    expect(middle.link).toContain('page=3&per_page=2>; rel="next"');
    const last = await query('sort=id&page=3&per_page=2');
    expect((last.body as unknown[]).length).toBe(1);
    expect(last.link).not.toContain('rel="next"');
    const window = await query('active=true&limit=2&offset=1');
    expect((window.body as Array<{ id: string }>).map((item) => item.id)).toEqual(['cid', 'dee']);
    expect(window.total).toBe('3');
    expect(window.link).toBe('</api/v1/data/people?active=true&limit=2&offset=0>; rel="first", </api/v1/data/people?active=true&limit=2&offset=0>; rel="prev", </api/v1/data/people?active=true&limit=2&offset=1>; rel="last"');
  });

  it('refuses what it cannot read with a stable code, never ignoring it', async () => {
    const cases: Array<[string, string]> = [
      ['nope=1', 'UNKNOWN_FIELD'],
      ['address.zip=1', 'UNKNOWN_FIELD'],
      ['sort=-nope', 'UNKNOWN_FIELD'],
      // Names every object inherits are not fields, with a schema or without.
      ['__proto__=1', 'UNKNOWN_FIELD'],
      ['sort=__proto__', 'UNKNOWN_FIELD'],
      ['address.__proto__=1', 'UNKNOWN_FIELD'],
      ['constructor=1', 'UNKNOWN_FIELD'],
      ['active=yes', 'BAD_QUERY'],
      ['age=old', 'BAD_QUERY'],
      ['age_gte=', 'BAD_QUERY'],
      ['limit=-1', 'BAD_QUERY'],
      ['page=0', 'BAD_QUERY'],
      ['page=1&limit=2', 'BAD_QUERY'],
      ['name..x=1', 'BAD_QUERY'],
      ['limit=1&limit=2', 'BAD_QUERY'],
      ['sort=name&sort=-age', 'BAD_QUERY'],
      ['at=2026-01-01T00:00:00Z&at=2027-01-01T00:00:00Z', 'BAD_QUERY'],
    ];
    for (const [search, code] of cases) {
      const answer = await query(search);
      expect([search, answer.status, answer.body]).toEqual([search, 400, expect.objectContaining({ error: expect.objectContaining({ code }) })]);
    }
  });

  it('without a schema, a value matches what prints the same, and fields are those the items have', async () => {
    const answer = await query('n=2', 'plain');
    expect((answer.body as Array<{ tag: string }>).map((item) => item.tag)).toEqual(['x', 'z']);
    expect(((await query('n_gt=5', 'plain')).body as Array<{ tag: string }>).map((item) => item.tag)).toEqual(['y']);
    expect((await query('size=1', 'plain')).status).toBe(400);
  });

  it('answers a repeated query from its kept answer until the next write', async () => {
    expect(await ids('address.city=Paris&sort=id')).toEqual(['ann', 'dee']);
    const created = await fetch(`${running.url}/api/v1/data/people`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: 'fay', name: 'Fay', age: 40, active: true, address: { city: 'Paris' } }) });
    expect(created.status).toBe(201);
    expect(await ids('address.city=Paris&sort=id')).toEqual(['ann', 'dee', 'fay']);
  });
});
