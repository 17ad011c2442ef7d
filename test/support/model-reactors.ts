import { afterAll, describe, it } from '@jest/globals';
import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ReactorSettings } from '../../src/application/ports/reactor-host.js';
import { productionContainer } from './production-container.js';
import { startReactorIn } from './reactor-fixture.js';
import { startPostgres, type TestPostgres } from './postgres.js';
import { startServe, type ServeProcess } from './serve-process.js';

type Running = Awaited<ReturnType<typeof startReactorIn>>;

/** What a model test sends its requests to: one or more reactors, any of them restarted at will. */
export interface Reactors {
  readonly count: number;
  /** The URL of reactor `index` (taken modulo their count, so a command may name any). */
  base(index?: number): string;
  start(): Promise<void>;
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Reactors wired as production wires them over one package directory, each with a workdir
 * of its own and listening on loopback: their overlays are the workdirs' files, or with
 * `settings.overlay` one PostgreSQL database they share, as reactors behind a load
 * balancer do. Any of them can be stopped and started again on its workdir, as a model
 * test's restarts want.
 */
export class RestartableReactors implements Reactors {
  private readonly running: Array<{ fixture: Running; base: string } | undefined>;

  constructor(
    private readonly site: string,
    private readonly workdirs: readonly string[],
    private readonly settings: Partial<ReactorSettings> = {},
  ) {
    this.running = workdirs.map(() => undefined);
  }

  get count(): number {
    return this.workdirs.length;
  }

  base(index = 0): string {
    return this.running[index % this.count]!.base;
  }

  async start(): Promise<void> {
    for (let index = 0; index < this.count; index++) await this.startOne(index);
  }

  async restart(index: number): Promise<void> {
    await this.stopOne(index % this.count);
    await this.startOne(index % this.count);
  }

  async stop(): Promise<void> {
    for (let index = 0; index < this.count; index++) await this.stopOne(index);
  }

  private async startOne(index: number): Promise<void> {
    const fixture = await startReactorIn(productionContainer(), [{ source: this.site }], { ...this.settings, workdir: this.workdirs[index]! });
    const address: AddressInfo = await fixture.server.listen(0, '127.0.0.1');
    this.running[index] = { fixture, base: `http://127.0.0.1:${address.port}` };
  }

  private async stopOne(index: number): Promise<void> {
    await this.running[index]?.fixture.stop();
    this.running[index] = undefined;
  }
}

/**
 * The built `pkg reactor serve` as a process of its own, with `args` (`--workers 2`, say):
 * one URL, however many processes answer it. A restart is a SIGKILL, as a crash would be,
 * and a start again on the same workdir.
 */
export class ReactorProcess implements Reactors {
  private running: ServeProcess | undefined;
  readonly count = 1;

  constructor(private readonly args: string[]) {}

  base(): string {
    return this.running!.url;
  }

  async start(): Promise<void> {
    this.running = await startServe(this.args);
  }

  async restart(): Promise<void> {
    await this.running?.stop('SIGKILL');
    await this.start();
  }

  async stop(): Promise<void> {
    await this.running?.stop();
    this.running = undefined;
  }
}

/** Runs a sequence of model commands against reactors started for it on fresh workdirs. */
export async function runOnReactors<Model extends object>(reactors: Reactors, model: Model, sequence: Iterable<fc.AsyncCommand<Model, Reactors>>): Promise<void> {
  await reactors.start();
  try {
    await fc.asyncModelRun(() => ({ model, real: reactors }), sequence);
  } finally {
    await reactors.stop();
  }
}

/** `POST /package/<name>/save` to reactor `at`, then `check` run on a reactor serving the saved `.cap` alone (its workdir `workdir`), stopped after. */
export async function withSaved(real: Reactors, at: number, workdir: string, check: (saved: Reactors) => Promise<void>): Promise<void> {
  const [{ name }] = ((await (await fetch(`${real.base(at)}/api/v1/introspect/metadata`)).json()) as { packages: Array<{ name: string }> }).packages;
  const answer = await fetch(`${real.base(at)}/package/${name}/save`, { method: 'POST' });
  if (answer.status !== 200) throw new Error(`save answered ${answer.status}: ${await answer.text()}`);
  const saved = new RestartableReactors(((await answer.json()) as { path: string }).path, [workdir]);
  await saved.start();
  try {
    await check(saved);
  } finally {
    await saved.stop();
  }
}

/**
 * A model test on the set-ups a reactor is run on: one reactor over its workdir's files;
 * two sharing a PostgreSQL database, each request sent to either (as a load balancer sends
 * them), either restarted; and the built reactor with two workers, a restart a SIGKILL.
 * `prepare` makes each sequence's package, named `name` (on the shared database each then
 * has an overlay of its own), in `work`, and the model it starts from.
 */
export function describeOnEverySetUp<Model extends object>(title: string, work: string, commands: Array<fc.Arbitrary<fc.AsyncCommand<Model, Reactors>>>, prepare: (name: string) => { site: string; model: Model }): void {
  let postgres: TestPostgres | undefined;
  afterAll(async () => postgres?.stop());
  let run = 0;
  const check = (runs: number, reactors: (site: string, name: string) => Reactors) =>
    fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (sequence) => {
        const name = `model-${++run}`;
        const { site, model } = prepare(name);
        await runOnReactors(reactors(site, name), model, sequence);
      }),
      { numRuns: runs },
    );
  const runs = (standard: number) => Number(process.env.FUZZ_RUNS ?? standard);
  describe(title, () => {
    it(`answers as the model says and keeps every acknowledged write across restarts (${runs(40)} sequences; FUZZ_RUNS sets more)`, async () => {
      await check(runs(40), (site, name) => new RestartableReactors(site, [join(work, `${name}-workdir`)]));
    });

    it(`does so on two reactors sharing a PostgreSQL database, each request to either (${runs(15)} sequences)`, async () => {
      postgres = await startPostgres();
      const overlay = postgres.url(await postgres.createDatabase());
      await check(runs(15), (site, name) => new RestartableReactors(site, [join(work, `${name}-a`), join(work, `${name}-b`)], { overlay }));
    });

    it(`does so on the built reactor with --workers 2, each request to either worker, a restart a SIGKILL (${runs(6)} sequences)`, async () => {
      await check(runs(6), (site, name) => new ReactorProcess([site, '--workers', '2', '--quiet', '--workdir', join(work, `${name}-workers`)]));
    });
  });
}
