import { afterAll, expect, jest } from '@jest/globals';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { temporaryDirectory } from '../support/paths.js';
import { describeOnEverySetUp, withSaved, type Reactors } from '../support/model-reactors.js';

jest.setTimeout(180_000);

/**
 * The dataset API against a model of it: random sequences of creates, replaces (some
 * conditional), deletes, reads, queries and histories, over REST and GraphQL, some sent
 * all at once, with saves and restarts between them; on one reactor, on two sharing a
 * PostgreSQL database with each request sent to either (as a load balancer sends them),
 * and on the built reactor with two workers. Every answer is the one the model predicts,
 * on the next request whichever reactor took the write, and every acknowledged write is
 * there after a restart and in a save: none lost, none doubled, none resurrected.
 */

const work = temporaryDirectory('cap-data-model-');
afterAll(() => work.remove());

const BASE = [
  { id: 'base-1', title: 'one' },
  { id: 'base-2', title: 'two', tags: ['t'] },
];

/** A package of its own name for each sequence: on a shared database, each has an overlay of its own. */
function writeSite(name: string): string {
  const site = join(work.path, name);
  const files = demoPackage({
    'metadata.json': JSON.stringify({ ...VALID_METADATA, name }),
    'data/items.json': JSON.stringify(BASE),
    'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
  });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(site, path)), { recursive: true });
    writeFileSync(join(site, path), text);
  }
  return site;
}

type Item = Record<string, unknown>;
/** Items by id, in collection order (a replaced item keeps its place). */
type Model = Map<string, Item>;

async function send(real: Reactors, at: number, method: string, id?: string, item?: unknown, ifMatch?: string): Promise<{ status: number; body: unknown; text: string; etag: string | null }> {
  const url = `${real.base(at)}/api/v1/data/items${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;
  const headers: Record<string, string> = { ...(item === undefined ? {} : { 'Content-Type': 'application/json' }), ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }) };
  const answer = await fetch(url, { method, headers, ...(item === undefined ? {} : { body: JSON.stringify(item) }) });
  const text = await answer.text();
  return { status: answer.status, body: text === '' ? undefined : (JSON.parse(text) as unknown), text, etag: answer.headers.get('ETag') };
}

/** An item's entity tag as the data API makes it: the SHA-256 of the JSON it serves. */
const tagOf = (json: string) => `"${createHash('sha256').update(json).digest('hex')}"`;

/** Each item's versions, oldest first, as `/history` lists them (times aside): what the model's writes made. */
type Version = { op: 'base' | 'create' | 'replace' | 'delete'; item?: Item };
const histories = new WeakMap<Model, Map<string, Version[]>>();
function historyOf(model: Model): Map<string, Version[]> {
  let history = histories.get(model);
  if (!history) histories.set(model, (history = new Map(BASE.map((item) => [item.id, [{ op: 'base', item }]]))));
  return history;
}
function recorded(model: Model, id: string, version: Version): void {
  const history = historyOf(model);
  history.set(id, [...(history.get(id) ?? []), version]);
}

/** As JSON carries it: what the model keeps of an item sent. */
const asSent = (item: Item): Item => JSON.parse(JSON.stringify(item)) as Item;

const id = fc.constantFrom('base-1', 'base-2', 'a', 'b', 'c', '1', '2', '3', 'x y', 'é', '__proto__', 'constructor');
const fields = fc.dictionary(fc.constantFrom('title', 'n', 'tags', 'nested', '__proto__', 'toString'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

class Create implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly id: string | undefined,
    private readonly fields: Item,
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const item = asSent(this.id === undefined ? this.fields : { ...this.fields, id: this.id });
    const { status, body } = await send(real, this.at, 'POST', undefined, item);
    if (this.id !== undefined && model.has(this.id)) return void expect(status).toBe(409);
    expect(status).toBe(201);
    const stored = body as Item;
    if (this.id !== undefined) expect(stored).toEqual(item);
    else expect(model.has(String(stored.id))).toBe(false);
    model.set(String(stored.id), stored);
    recorded(model, String(stored.id), { op: 'create', item: stored });
  }
  toString = () => `POST@${this.at} ${JSON.stringify(this.id)} ${JSON.stringify(this.fields)}`;
}

class Replace implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly id: string,
    private readonly fields: Item,
    private readonly withId: 'same' | 'none' | 'other',
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const item = asSent(this.withId === 'none' ? this.fields : { ...this.fields, id: this.withId === 'same' ? this.id : `${this.id}-other` });
    const { status, body } = await send(real, this.at, 'PUT', this.id, item);
    if (this.withId === 'other') return void expect(status).toBe(409);
    if (!model.has(this.id)) return void expect(status).toBe(404);
    expect(status).toBe(200);
    // Items here all carry their id, so a replacement without one gets it.
    expect(body).toEqual({ id: this.id, ...item });
    model.set(this.id, body as Item);
    recorded(model, this.id, { op: 'replace', item: body as Item });
  }
  toString = () => `PUT@${this.at} ${JSON.stringify(this.id)} ${JSON.stringify(this.fields)} (id: ${this.withId})`;
}

class Delete implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly id: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const { status } = await send(real, this.at, 'DELETE', this.id);
    const existed = model.delete(this.id);
    expect(status).toBe(existed ? 204 : 404);
    if (existed) recorded(model, this.id, { op: 'delete' });
  }
  toString = () => `DELETE@${this.at} ${JSON.stringify(this.id)}`;
}

class Read implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly id: string | undefined,
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const { status, body, text, etag } = await send(real, this.at, 'GET', this.id);
    if (this.id === undefined) return void expect([status, body]).toEqual([200, [...model.values()]]);
    const item = model.get(this.id);
    expect(status).toBe(item === undefined ? 404 : 200);
    // The tag is of the bytes served, whichever reactor serves them and however the item came to be.
    if (item !== undefined) expect([body, etag]).toEqual([item, tagOf(text)]);
  }
  toString = () => `GET@${this.at} ${this.id === undefined ? 'list' : JSON.stringify(this.id)}`;
}

/** A replace that holds only if the item still has the tag named: its own, an older one, `*`, or one of no item. */
class ConditionalReplace implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly id: string,
    private readonly naming: 'current' | 'older' | 'any' | 'none',
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const current = model.get(this.id);
    const tag = { current: current && tagOf(JSON.stringify(current)), older: tagOf(JSON.stringify({ ...current, older: true })), any: '*', none: tagOf('"no item"') }[this.naming] ?? tagOf('null');
    const item = { id: this.id, replaced: this.naming };
    const { status, body } = await send(real, this.at, 'PUT', this.id, item, tag);
    const holds = current !== undefined && (this.naming === 'current' || this.naming === 'any');
    expect(status).toBe(holds ? 200 : 412);
    if (holds) {
      model.set(this.id, body as Item);
      recorded(model, this.id, { op: 'replace', item: body as Item });
    }
  }
  toString = () => `PUT@${this.at} ${JSON.stringify(this.id)} If-Match ${this.naming}`;
}

/** A query asked of every reactor at once: each answers it alike, cached or not, and never with items the model does not hold. */
class Query implements fc.AsyncCommand<Model, Reactors> {
  constructor(private readonly query: string) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const answers = await Promise.all(Array.from({ length: real.count }, async (_, at) => {
      const answer = await fetch(`${real.base(at)}/api/v1/data/items?${this.query}`);
      return { status: answer.status, total: answer.headers.get('X-Total-Count'), etag: answer.headers.get('ETag'), text: await answer.text() };
    }));
    for (const other of answers.slice(1)) expect(other).toEqual(answers[0]);
    if (answers[0]!.status !== 200) return void expect(answers[0]!.status).toBe(400);
    for (const item of JSON.parse(answers[0]!.text) as Item[]) expect(model.get(String(item.id))).toEqual(item);
  }
  toString = () => `GET ?${this.query}`;
}

/** A GraphQL mutation on reactor `at`: its data, or the code of its first error. */
async function mutate(real: Reactors, at: number, query: string, variables: Record<string, unknown>): Promise<{ data: unknown; code: unknown }> {
  const answer = await fetch(`${real.base(at)}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const result = (await answer.json()) as { data?: Record<string, unknown> | null; errors?: Array<{ extensions?: { code?: unknown } }> };
  return { data: result.data ? Object.values(result.data)[0] : null, code: result.errors?.[0]?.extensions?.code };
}

/** The same writes through GraphQL: the REST API, the history and the other reactors see them alike. */
class GraphqlWrite implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly op: 'create' | 'update' | 'delete',
    private readonly id: string,
    private readonly fields: Item,
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const item = asSent({ ...this.fields, id: this.id });
    const exists = model.has(this.id);
    if (this.op === 'create') {
      const { data, code } = await mutate(real, this.at, 'mutation($item: JSON!) { createItems(item: $item) }', { item });
      if (exists) return void expect([data, code]).toEqual([null, 'DUPLICATE_ID']);
      expect(data).toEqual(item);
      model.set(this.id, item);
      return recorded(model, this.id, { op: 'create', item });
    }
    if (this.op === 'update') {
      const { data, code } = await mutate(real, this.at, 'mutation($id: ID!, $item: JSON!) { updateItems(id: $id, item: $item) }', { id: this.id, item });
      if (!exists) return void expect([data, code]).toEqual([null, 'ITEM_NOT_FOUND']);
      expect(data).toEqual(item);
      model.set(this.id, item);
      return recorded(model, this.id, { op: 'replace', item });
    }
    const { data, code } = await mutate(real, this.at, 'mutation($id: ID!) { deleteItems(id: $id) }', { id: this.id });
    if (!exists) return void expect([data, code]).toEqual([null, 'ITEM_NOT_FOUND']);
    expect(data).toBe(this.id);
    model.delete(this.id);
    recorded(model, this.id, { op: 'delete' });
  }
  toString = () => `GraphQL ${this.op}@${this.at} ${JSON.stringify(this.id)} ${JSON.stringify(this.fields)}`;
}

/** An item's history: every version the model's writes made, in order, on whichever reactor asks, and 404 for an item that never was. */
class History implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly id: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const answer = await fetch(`${real.base(this.at)}/api/v1/data/items/${encodeURIComponent(this.id)}/history`);
    const versions = historyOf(model).get(this.id);
    if (versions === undefined) return void expect(answer.status).toBe(404);
    const listed = ((await answer.json()) as { versions: Array<Version & { at: unknown }> }).versions;
    expect([answer.status, listed.map(({ op, item }) => (item === undefined ? { op } : { op, item }))]).toEqual([200, versions]);
  }
  toString = () => `history@${this.at} ${JSON.stringify(this.id)}`;
}

/** `save`, then the saved `.cap` served on its own: it holds what the model holds, base and writes folded. */
class Save implements fc.AsyncCommand<Model, Reactors> {
  constructor(private readonly at: number) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    await withSaved(real, this.at, join(work.path, `saved-${++Save.count}`), async (saved) => {
      expect((await send(saved, 0, 'GET')).body).toEqual([...model.values()]);
    });
  }
  private static count = 0;
  toString = () => `save@${this.at}`;
}

/** Creates of fresh ids sent at once: each acknowledged, each kept, in some order. */
class Burst implements fc.AsyncCommand<Model, Reactors> {
  private static next = 0;
  constructor(private readonly size: number) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const items = Array.from({ length: this.size }, () => ({ id: `burst-${++Burst.next}`, n: Burst.next }));
    const answers = await Promise.all(items.map((item, i) => send(real, i, 'POST', undefined, item)));
    expect(answers.map((answer) => answer.status)).toEqual(items.map(() => 201));
    for (const item of items) {
      model.set(item.id, item);
      recorded(model, item.id, { op: 'create', item });
    }
    const { body } = await send(real, Burst.next, 'GET');
    // Written at once, they may land in any order; everything else keeps its place.
    const listed = body as Item[];
    expect(new Set(listed.map((item) => item.id))).toEqual(new Set(model.keys()));
    model.clear();
    for (const item of listed) model.set(String(item.id), item);
  }
  toString = () => `${this.size} POSTs at once`;
}

class Restart implements fc.AsyncCommand<Model, Reactors> {
  constructor(private readonly at: number) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    await real.restart(this.at);
    for (let at = 0; at < real.count; at++) expect((await send(real, at, 'GET')).body).toEqual([...model.values()]);
  }
  toString = () => `restart ${this.at}`;
}

/** Which reactor a request goes to: any, when there are several. */
const at = fc.nat({ max: 1 });
const commands = [
  fc.tuple(at, fc.option(id, { nil: undefined }), fields).map(([to, given, item]) => new Create(to, given, item)),
  fc.tuple(at, id, fields, fc.constantFrom('same' as const, 'none' as const, 'other' as const)).map(([to, given, item, withId]) => new Replace(to, given, item, withId)),
  fc.tuple(at, id).map(([to, given]) => new Delete(to, given)),
  fc.tuple(at, fc.option(id, { nil: undefined })).map(([to, given]) => new Read(to, given)),
  fc.integer({ min: 2, max: 12 }).map((size) => new Burst(size)),
  fc.tuple(at, id, fc.constantFrom('current' as const, 'older' as const, 'any' as const, 'none' as const)).map(([to, given, naming]) => new ConditionalReplace(to, given, naming)),
  fc
    .array(fc.constantFrom('sort=id', 'sort=-id', 'sort=title,-id', 'sort=n', 'limit=2', 'limit=0', 'offset=1', 'title=one', 'title_like=o', 'q=t', 'n_gte=1', 'n_lt=x', 'tags=t', 'id_ne=a', 'nope=1', '_page=2', '_limit=3'), { maxLength: 4 })
    .map((parts) => new Query(parts.join('&'))),
  at.map((to) => new Restart(to)),
  at.map((to) => new Save(to)),
  fc.tuple(at, id).map(([to, given]) => new History(to, given)),
  fc.tuple(at, fc.constantFrom('create' as const, 'update' as const, 'delete' as const), id, fields).map(([to, op, given, item]) => new GraphqlWrite(to, op, given, item)),
];

describeOnEverySetUp('the dataset API against its model', work.path, commands, (name) => ({ site: writeSite(name), model: new Map(BASE.map((item) => [item.id, item])) }));
