import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { productionOpener } from '../support/production-container.js';
import { startListening } from '../support/listening-reactor.js';
import { watchUnexpectedErrors } from '../support/unexpected-errors.js';

jest.setTimeout(120_000);

/**
 * GraphQL documents and variables come from strangers: whatever they hold, the endpoint
 * answers with JSON and a status below 500, and the reactor keeps serving. Operations are
 * built from the schema's own names (so most reach the resolvers) and from pieces of
 * GraphQL's grammar that parsers and executors get wrong: fragments that spread
 * themselves, aliases, directives, variables of every type, deep selections.
 */

const work = temporaryDirectory('cap-graphql-fuzz-');
let fixture: Awaited<ReturnType<typeof startListening>>;
let watch: ReturnType<typeof watchUnexpectedErrors>;

beforeAll(async () => {
  // Beside the example site's schema-checked articles: a dataset without a schema, whose items hold anything.
  const free = join(work.path, 'free');
  const files = demoPackage({
    'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'free' }),
    'data/items.json': JSON.stringify([{ id: 'a', n: 1, nested: { deep: [1, { x: 'y' }] } }, { id: 'b', n: 2, tags: ['t'] }]),
    'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
  });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(free, path)), { recursive: true });
    writeFileSync(join(free, path), text);
  }
  fixture = await startListening(productionOpener(), [{ source: EXAMPLE_SITE }, { source: free, prefix: '/free' }], { workdir: work.path });
  watch = watchUnexpectedErrors();
});
afterAll(async () => {
  watch.stop();
  await fixture.stop();
  work.remove();
});

const name = fc.constantFrom('articles', 'items', 'createArticles', 'updateArticles', 'deleteArticles', 'createItems', 'updateItems', 'deleteItems', '__typename', '__schema', '__type', 'x', '__proto__', 'constructor');
const selected = fc.constantFrom('id', 'title', 'body', 'tags', 'published', '_json', 'n', 'nested', '__typename', 'name', 'fields', 'types', '__proto__');
const literal = fc.oneof(
  fc.constantFrom('null', 'true', '0', '-1', '1.5', '1e309', '99999999999999999999', '""', '"x"', '"-title"', '"title,-id"', '"__proto__"', '"hello-world"', 'ENUM', '[]', '{}', '$v', '$undeclared'),
  fc.constantFrom('{ id: "z", title: "t", body: "b" }', '{ id: "a", n: 1 }', '{ __proto__: { polluted: true } }', '{ title_like: "%" }', '{ n_gte: "x" }', '[[[[1]]]]', '"\\u0000"', '"\\uD800"'),
  fc.string({ maxLength: 6 }).map((text) => JSON.stringify(text)),
  fc.integer().map(String),
);
const argument = fc.tuple(fc.constantFrom('id', 'limit', 'offset', 'filter', 'q', 'sort', 'item', 'name', 'x'), literal).map(([key, value]) => `${key}: ${value}`);
const directive = fc.constantFrom('', '', '@skip(if: true)', '@include(if: false)', '@include(if: $v)', '@skip', '@deprecated', '@include(if: true) @include(if: true)');
const { field } = fc.letrec<{ field: string }>((tie) => ({
  field: fc
    .tuple(
      fc.option(fc.constantFrom('a', 'b', '__typename', 'id'), { nil: undefined }),
      name,
      fc.array(argument, { maxLength: 3 }),
      directive,
      fc.oneof({ depthSize: 'small' }, fc.constant(''), fc.array(fc.oneof(selected, tie('field'), fc.constantFrom('...F', '... on ArticlesItem { id }', '... { id }')), { minLength: 1, maxLength: 3 }).map((inner) => `{ ${inner.join(' ')} }`)),
    )
    .map(([alias, fieldName, args, dir, selection]) => `${alias ? `${alias}: ` : ''}${fieldName}${args.length > 0 ? `(${args.join(', ')})` : ''} ${dir} ${selection}`),
}));
const variableType = fc.constantFrom('Int', 'String', 'Boolean', 'ID', 'Float', '[Int]', 'Int!', 'JSON', 'ArticlesItemInput', 'Nope');
const operation = fc
  .tuple(fc.constantFrom('query', 'mutation', 'subscription', '', 'query Q', 'mutation M'), fc.option(variableType, { nil: undefined }), fc.array(field, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '', 'fragment F on ArticlesItem { id ...F }', 'fragment F on Query { articles { id } }', 'fragment F on Nope { id }', '{ articles { id } }'))
  .map(([kind, type, fields, tail]) => `${kind}${type && kind !== '' ? `($v: ${type})` : ''} { ${fields.join(' ')} } ${tail}`);
const body = fc.oneof(
  { weight: 6, arbitrary: fc.record({ query: operation, variables: fc.option(fc.oneof(fc.record({ v: fc.jsonValue({ maxDepth: 3 }) }), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }), operationName: fc.option(fc.constantFrom('Q', 'M', 'Nope', ''), { nil: undefined }) }).map((request) => JSON.stringify(request)) },
  fc.record({ query: fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 2 })) }).map((request) => JSON.stringify(request)),
  fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 30 }),
);

/** A request body as GET's query string: each field of a JSON object as a parameter (objects as JSON), anything else as `query`. */
function asSearch(text: string): URLSearchParams {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return new URLSearchParams({ query: text });
  }
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return new URLSearchParams({ query: text });
  return new URLSearchParams(Object.entries(request).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
}

describe('GraphQL from strangers', () => {
  it(`answers every operation with JSON below 500 and keeps serving (${process.env.FUZZ_RUNS ?? 1500} runs; FUZZ_RUNS sets more)`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/graphql', '/free/graphql'), body, fc.boolean(), async (path, text, asGet) => {
        const answer = asGet
          ? await fetch(`${fixture.base}${path}?${asSearch(text)}`)
          : await fetch(`${fixture.base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const received = await answer.text();
        expect(answer.status).toBeLessThan(500);
        expect(() => JSON.parse(received) as unknown).not.toThrow();
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 1500) },
    );
    expect(watch.unexpected).toEqual([]);
    // Most runs reach the executor rather than stop at the parser: the test exercises resolvers.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(100);
    expect((await fetch(`${fixture.base}/api/v1/data/articles`)).status).toBe(200);
    expect((await fetch(`${fixture.base}/free/api/v1/data/items`)).status).toBe(200);
    // No item's JSON reached Object.prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
