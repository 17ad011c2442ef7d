import { afterAll, expect, jest } from '@jest/globals';
import fc from 'fast-check';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { describeOnEverySetUp, withSaved, type Reactors } from '../support/model-reactors.js';

jest.setTimeout(180_000);

/**
 * Content writes against a model of them: random PUTs and DELETEs of files in a few
 * nested folders, where a file and a folder may want one name, with reads, saves and
 * restarts between them; on one reactor, on two sharing a PostgreSQL database with each
 * request sent to either, and on the built reactor with two workers. Each answer is the
 * one the model predicts (a name is a file's or a folder's, never both, and has one
 * spelling: 409, read in either), and every acknowledged write is there after a restart and in a save.
 */

const work = temporaryDirectory('cap-content-model-');
afterAll(() => work.remove());

/** Files by path, as the model has them: the package's own among the names commands use, and those written. */
type Model = Map<string, string>;

async function send(real: Reactors, at: number, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const answer = await fetch(`${real.base(at)}/${path}`, { method, ...(body === undefined ? {} : { body }) });
  return { status: answer.status, text: await answer.text() };
}

/** The file a read of `path` finds: that name in either Unicode spelling (a name has one: see conflicts). */
function spellingIn(model: Model, path: string): string | undefined {
  const spelled = path.normalize('NFC');
  return [...model.keys()].find((file) => file.normalize('NFC') === spelled);
}

/** Whether writing `path` would make a name both a file's and a folder's, or give a name a second spelling (the same once Unicode-normalized). */
function conflicts(model: Model, path: string): boolean {
  const spelled = path.normalize('NFC');
  for (const file of model.keys()) {
    if (file === path) continue;
    const other = file.normalize('NFC');
    if (other === spelled || other.startsWith(`${spelled}/`) || spelled.startsWith(`${other}/`)) return true;
  }
  return false;
}

/** Names of a folder of its own (m/), and names the package's own files and folders hold (a deleted stylesheet's folder may become a file). */
const path = fc.oneof(
  fc.array(fc.constantFrom('a', 'b', 'c.txt', '\u00e9', 'e\u0301'), { minLength: 1, maxLength: 3 }).map((parts) => `m/${parts.join('/')}`),
  fc.array(fc.constantFrom('css', 'style.css', 'about.html', 'x'), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/')),
);
/** The package's own files among those names, as the model starts. */
const BASE = ['css/style.css', 'about.html'].map((file) => [file, readFileSync(join(EXAMPLE_SITE, 'content', file), 'utf8')] as const);

class Put implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly path: string,
    private readonly body: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const { status, text } = await send(real, this.at, 'PUT', this.path, this.body);
    if (conflicts(model, this.path)) return void expect([status, JSON.parse(text).error.code]).toEqual([409, 'CONTENT_CONFLICT']);
    expect(status).toBe(200);
    model.set(this.path, this.body);
  }
  toString = () => `PUT@${this.at} ${this.path} ${JSON.stringify(this.body)}`;
}

class Delete implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly path: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const { status } = await send(real, this.at, 'DELETE', this.path);
    expect(status).toBe(model.delete(this.path) ? 204 : 404);
  }
  toString = () => `DELETE@${this.at} ${this.path}`;
}

class Read implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly path: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    const { status, text } = await send(real, this.at, 'GET', this.path);
    const spelled = spellingIn(model, this.path);
    const body = spelled === undefined ? undefined : model.get(spelled);
    expect([status, status === 200 ? text : undefined]).toEqual(body === undefined ? [404, undefined] : [200, body]);
  }
  toString = () => `GET@${this.at} ${this.path}`;
}

class Restart implements fc.AsyncCommand<Model, Reactors> {
  constructor(private readonly at: number) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    await real.restart(this.at);
    for (let at = 0; at < real.count; at++) for (const [file, body] of model) expect([file, (await send(real, at, 'GET', file)).text]).toEqual([file, body]);
  }
  toString = () => `restart ${this.at}`;
}

/** Which reactor a request goes to: any, when there are several. */
const at = fc.nat({ max: 1 });
/** `save`, then the saved `.cap` served on its own: it holds the files the model holds, and none it deleted. */
class Save implements fc.AsyncCommand<Model, Reactors> {
  constructor(
    private readonly at: number,
    private readonly probe: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Reactors): Promise<void> {
    await withSaved(real, this.at, join(work.path, `saved-${++Save.count}`), async (saved) => {
      for (const [file, body] of model) expect([file, (await send(saved, 0, 'GET', file)).text]).toEqual([file, body]);
      if (spellingIn(model, this.probe) === undefined) expect((await send(saved, 0, 'GET', this.probe)).status).toBe(404);
    });
  }
  private static count = 0;
  toString = () => `save@${this.at}`;
}

const commands = [
  fc.tuple(at, path, fc.string({ maxLength: 12 })).map(([to, file, body]) => new Put(to, file, body)),
  fc.tuple(at, path).map(([to, file]) => new Delete(to, file)),
  fc.tuple(at, path).map(([to, file]) => new Read(to, file)),
  at.map((to) => new Restart(to)),
  fc.tuple(at, path).map(([to, probe]) => new Save(to, probe)),
];

describeOnEverySetUp('content writes against their model', work.path, commands, (name) => {
  const site = join(work.path, name);
  cpSync(EXAMPLE_SITE, site, { recursive: true });
  const metadata = JSON.parse(readFileSync(join(site, 'metadata.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(site, 'metadata.json'), JSON.stringify({ ...metadata, name }));
  return { site, model: new Map(BASE) };
});
