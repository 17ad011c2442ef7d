import { afterAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { cpSync, mkdirSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { RestartableReactors } from '../support/model-reactors.js';

jest.setTimeout(180_000);

/**
 * `--watch` against a model: files of a served directory written, rewritten and removed
 * on disk at random, each followed at once by requests. Every request sees every edit
 * made before it was sent, as `--watch` promises (the next request, not a moment later).
 */

const work = temporaryDirectory('cap-watch-model-');
afterAll(() => work.remove());

/** Files below content/w, by path, as written on disk. */
type Model = Map<string, string>;

/** The reactor, and the directory it serves. */
interface Served {
  site: string;
  reactor: RestartableReactors;
}

/** Whether `path` can be a file beside the model's files: no file is a folder of it, nor it of one. */
const fits = (model: Model, path: string) => ![...model.keys()].some((file) => file !== path && (file.startsWith(`${path}/`) || path.startsWith(`${file}/`)));

const path = fc.array(fc.constantFrom('a', 'b', 'c.txt'), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));

class Write implements fc.AsyncCommand<Model, Served> {
  constructor(
    private readonly path: string,
    private readonly body: string,
  ) {}
  check = (model: Readonly<Model>) => fits(model as Model, this.path);
  async run(model: Model, served: Served): Promise<void> {
    const file = join(served.site, 'content/w', this.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, this.body);
    model.set(this.path, this.body);
    await expectServed(model, served, this.path);
  }
  toString = () => `write ${this.path} ${JSON.stringify(this.body)}`;
}

class Remove implements fc.AsyncCommand<Model, Served> {
  constructor(private readonly path: string) {}
  check = (model: Readonly<Model>) => model.has(this.path);
  async run(model: Model, served: Served): Promise<void> {
    rmSync(join(served.site, 'content/w', this.path));
    // The folders it leaves empty go too, as a user clearing them out would do: a file may take their names.
    for (let folder = dirname(this.path); folder !== '.' && readdirSync(join(served.site, 'content/w', folder)).length === 0; folder = dirname(folder)) rmdirSync(join(served.site, 'content/w', folder));
    model.delete(this.path);
    await expectServed(model, served, this.path);
  }
  toString = () => `remove ${this.path}`;
}

class Read implements fc.AsyncCommand<Model, Served> {
  constructor(private readonly path: string) {}
  check = () => true;
  async run(model: Model, served: Served): Promise<void> {
    await expectServed(model, served, this.path);
  }
  toString = () => `GET ${this.path}`;
}

async function expectServed(model: Model, served: Served, path: string): Promise<void> {
  const answer = await fetch(`${served.reactor.base()}/w/${path}`);
  const body = model.get(path);
  expect([path, answer.status, answer.status === 200 ? await answer.text() : undefined]).toEqual([path, body === undefined ? 404 : 200, body]);
}

const commands = [
  fc.tuple(path, fc.string({ maxLength: 10 })).map(([at, body]) => new Write(at, body)),
  path.map((at) => new Remove(at)),
  path.map((at) => new Read(at)),
];

describe('--watch against its model', () => {
  it(`serves every edit on disk from the request sent right after it (${process.env.FUZZ_RUNS ?? 25} sequences; FUZZ_RUNS sets more)`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), async (sequence) => {
        const site = join(work.path, `site-${++run}`);
        cpSync(EXAMPLE_SITE, site, { recursive: true });
        const reactor = new RestartableReactors(site, [join(work.path, `workdir-${run}`)], { watch: true });
        await reactor.start();
        try {
          await fc.asyncModelRun(() => ({ model: new Map(), real: { site, reactor } }), sequence);
        } finally {
          await reactor.stop();
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 25) },
    );
  });
});
