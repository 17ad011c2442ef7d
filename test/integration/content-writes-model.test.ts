import { afterAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runOnReactor, type RestartableReactor } from '../support/restartable-reactor.js';

jest.setTimeout(180_000);

/**
 * Content writes against a model of them: random PUTs and DELETEs of files in a few
 * nested folders, where a file and a folder may want one name, with reads and restarts
 * on the same workdir between them. Each answer is the one the model predicts (a name
 * is a file's or a folder's, never both: 409), and every acknowledged write is there after
 * a restart.
 */

const work = temporaryDirectory('cap-content-model-');
afterAll(() => work.remove());

/** Files by path below /m, as the model has them. */
type Model = Map<string, string>;


async function send(real: RestartableReactor, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const answer = await fetch(`${real.base}/m/${path}`, { method, ...(body === undefined ? {} : { body }) });
  return { status: answer.status, text: await answer.text() };
}

/** Whether writing `path` would make a name both a file's and a folder's. */
function conflicts(model: Model, path: string): boolean {
  for (const file of model.keys()) if (file !== path && (file.startsWith(`${path}/`) || path.startsWith(`${file}/`))) return true;
  return false;
}

const path = fc.array(fc.constantFrom('a', 'b', 'c.txt'), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));

class Put implements fc.AsyncCommand<Model, RestartableReactor> {
  constructor(
    private readonly path: string,
    private readonly body: string,
  ) {}
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    const { status, text } = await send(real, 'PUT', this.path, this.body);
    if (conflicts(model, this.path)) return void expect([status, JSON.parse(text).error.code]).toEqual([409, 'CONTENT_CONFLICT']);
    expect(status).toBe(200);
    model.set(this.path, this.body);
  }
  toString = () => `PUT ${this.path} ${JSON.stringify(this.body)}`;
}

class Delete implements fc.AsyncCommand<Model, RestartableReactor> {
  constructor(private readonly path: string) {}
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    const { status } = await send(real, 'DELETE', this.path);
    expect(status).toBe(model.delete(this.path) ? 204 : 404);
  }
  toString = () => `DELETE ${this.path}`;
}

class Read implements fc.AsyncCommand<Model, RestartableReactor> {
  constructor(private readonly path: string) {}
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    const { status, text } = await send(real, 'GET', this.path);
    const body = model.get(this.path);
    expect([status, status === 200 ? text : undefined]).toEqual(body === undefined ? [404, undefined] : [200, body]);
  }
  toString = () => `GET ${this.path}`;
}

class Restart implements fc.AsyncCommand<Model, RestartableReactor> {
  check = () => true;
  async run(model: Model, real: RestartableReactor): Promise<void> {
    await real.stop();
    await real.start();
    for (const [file, body] of model) expect([file, (await send(real, 'GET', file)).text]).toEqual([file, body]);
  }
  toString = () => 'restart';
}

const commands = [
  fc.tuple(path, fc.string({ maxLength: 12 })).map(([at, body]) => new Put(at, body)),
  path.map((at) => new Delete(at)),
  path.map((at) => new Read(at)),
  fc.constant(new Restart()),
];

describe('content writes against their model', () => {
  it(`answers as the model says and keeps every acknowledged write across restarts (${process.env.FUZZ_RUNS ?? 40} sequences; FUZZ_RUNS sets more)`, async () => {
    const site = join(work.path, 'site');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (sequence) => {
        await runOnReactor(site, join(work.path, `workdir-${++run}`), new Map(), sequence);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 40) },
    );
  });
});
