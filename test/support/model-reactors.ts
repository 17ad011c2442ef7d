import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import type { ReactorSettings } from '../../src/application/ports/reactor-host.js';
import { productionContainer } from './production-container.js';
import { startReactorIn } from './reactor-fixture.js';
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
