import { afterAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { temporaryDirectory } from '../support/paths.js';
import { runOnReactor, type RestartableReactor } from '../support/restartable-reactor.js';

jest.setTimeout(180_000);

/**
 * The dataset REST API against a model of it: random sequences of creates, replaces,
 * deletes and reads, some sent all at once, with restarts of the reactor on the same
 * workdir between them. Every answer is the one the model predicts, and every write that
 * was acknowledged is there after a restart: none lost, none doubled, none resurrected.
 */

const work = temporaryDirectory('cap-data-model-');
afterAll(() => work.remove());

const BASE = [
  { id: 'base-1', title: 'one' },
  { id: 'base-2', title: 'two', tags: ['t'] },
];

function writeSite(): string {
  const site = join(work.path, 'site');
  const files = demoPackage({
    'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'model' }),
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


async function send(real: RestartableReactor, method: string, id?: string, item?: unknown): Promise<{ status: number; body: unknown }> {
  const url = `${real.base}/api/v1/data/items${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;
  const answer = await fetch(url, { method, ...(item === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(item) }) });
  const text = await answer.text();
  return { status: answer.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** As JSON carries it: what the model keeps of an item sent. */
const asSent = (item: Item): Item => JSON.parse(JSON.stringify(item)) as Item;

const id = fc.constantFrom('base-1', 'base-2', 'a', 'b', 'c', '1', '2', '3', 'x y', 'é', '__proto__', 'constructor');
const fields = fc.dictionary(fc.constantFrom('title', 'n', 'tags', 'nested', '__proto__', 'toString'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

class Create implements fc.AsyncCommand<Model, RestartableReactor> {
  constructor(
    private readonly id: string | undefined,
    private readonly fields: Item,
  ) {}
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    const item = asSent(this.id === undefined ? this.fields : { ...this.fields, id: this.id });
    const { status, body } = await send(real, 'POST', undefined, item);
    if (this.id !== undefined && model.has(this.id)) return void expect(status).toBe(409);
    expect(status).toBe(201);
    const stored = body as Item;
    if (this.id !== undefined) expect(stored).toEqual(item);
    else expect(model.has(String(stored.id))).toBe(false);
    model.set(String(stored.id), stored);
  }
  toString = () => `POST ${JSON.stringify(this.id)} ${JSON.stringify(this.fields)}`;
}

class Replace implements fc.AsyncCommand<Model, RestartableReactor> {
  constructor(
    private readonly id: string,
    private readonly fields: Item,
    private readonly withId: 'same' | 'none' | 'other',
  ) {}
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    const item = asSent(this.withId === 'none' ? this.fields : { ...this.fields, id: this.withId === 'same' ? this.id : `${this.id}-other` });
    const { status, body } = await send(real, 'PUT', this.id, item);
    if (this.withId === 'other') return void expect(status).toBe(409);
    if (!model.has(this.id)) return void expect(status).toBe(404);
    expect(status).toBe(200);
    // Items here all carry their id, so a replacement without one gets it.
    expect(body).toEqual({ id: this.id, ...item });
    model.set(this.id, body as Item);
  }
  toString = () => `PUT ${JSON.stringify(this.id)} ${JSON.stringify(this.fields)} (id: ${this.withId})`;
}

class Delete implements fc.AsyncCommand<Model, RestartableReactor> {
  constructor(private readonly id: string) {}
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    const { status } = await send(real, 'DELETE', this.id);
    expect(status).toBe(model.delete(this.id) ? 204 : 404);
  }
  toString = () => `DELETE ${JSON.stringify(this.id)}`;
}

class Read implements fc.AsyncCommand<Model, RestartableReactor> {
  constructor(private readonly id: string | undefined) {}
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    const { status, body } = await send(real, 'GET', this.id);
    if (this.id === undefined) return void expect([status, body]).toEqual([200, [...model.values()]]);
    const item = model.get(this.id);
    expect(status).toBe(item === undefined ? 404 : 200);
    if (item !== undefined) expect(body).toEqual(item);
  }
  toString = () => `GET ${this.id === undefined ? 'list' : JSON.stringify(this.id)}`;
}

/** Creates of fresh ids sent at once: each acknowledged, each kept, in some order. */
class Burst implements fc.AsyncCommand<Model, RestartableReactor> {
  private static next = 0;
  constructor(private readonly size: number) {}
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    const items = Array.from({ length: this.size }, () => ({ id: `burst-${++Burst.next}`, n: Burst.next }));
    const answers = await Promise.all(items.map((item) => send(real, 'POST', undefined, item)));
    expect(answers.map((answer) => answer.status)).toEqual(items.map(() => 201));
    for (const item of items) model.set(item.id, item);
    const { body } = await send(real, 'GET');
    // Written at once, they may land in any order; everything else keeps its place.
    const listed = body as Item[];
    expect(new Set(listed.map((item) => item.id))).toEqual(new Set(model.keys()));
    model.clear();
    for (const item of listed) model.set(String(item.id), item);
  }
  toString = () => `${this.size} POSTs at once`;
}

class Restart implements fc.AsyncCommand<Model, RestartableReactor> {
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    await real.stop();
    await real.start();
    expect((await send(real, 'GET')).body).toEqual([...model.values()]);
  }
  toString = () => 'restart';
}

const commands = [
  fc.tuple(fc.option(id, { nil: undefined }), fields).map(([given, item]) => new Create(given, item)),
  fc.tuple(id, fields, fc.constantFrom('same' as const, 'none' as const, 'other' as const)).map(([given, item, withId]) => new Replace(given, item, withId)),
  id.map((given) => new Delete(given)),
  fc.option(id, { nil: undefined }).map((given) => new Read(given)),
  fc.integer({ min: 2, max: 12 }).map((size) => new Burst(size)),
  fc.constant(new Restart()),
];

describe('the dataset REST API against its model', () => {
  it(`answers as the model says and keeps every acknowledged write across restarts (${process.env.FUZZ_RUNS ?? 40} sequences; FUZZ_RUNS sets more)`, async () => {
    const site = writeSite();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (sequence) => {
        await runOnReactor(site, join(work.path, `workdir-${++run}`), new Map(BASE.map((item) => [item.id, item])), sequence);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 40) },
    );
  });
});
