import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { productionContainer } from './production-container.js';
import { startReactorIn } from './reactor-fixture.js';

type Running = Awaited<ReturnType<typeof startReactorIn>>;

/**
 * Reactors wired as production wires them over one package directory, each with a workdir
 * of its own and listening on loopback: their overlays are the workdirs' files, or with
 * `overlay` one PostgreSQL database they share, as reactors behind a load balancer do.
 * Any of them can be stopped and started again on its workdir, as a model test's
 * restarts want.
 */
export class RestartableReactors {
  private readonly running: Array<{ fixture: Running; base: string } | undefined>;

  constructor(
    private readonly site: string,
    private readonly workdirs: readonly string[],
    private readonly overlay?: string,
  ) {
    this.running = workdirs.map(() => undefined);
  }

  get count(): number {
    return this.workdirs.length;
  }

  /** The URL of reactor `index` (taken modulo their count, so a command may name any). */
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
    const fixture = await startReactorIn(productionContainer(), [{ source: this.site }], { workdir: this.workdirs[index]!, ...(this.overlay ? { overlay: this.overlay } : {}) });
    const address: AddressInfo = await fixture.server.listen(0, '127.0.0.1');
    this.running[index] = { fixture, base: `http://127.0.0.1:${address.port}` };
  }

  private async stopOne(index: number): Promise<void> {
    await this.running[index]?.fixture.stop();
    this.running[index] = undefined;
  }
}

/** Runs a sequence of model commands against reactors started for it on fresh workdirs. */
export async function runOnReactors<Model extends object>(reactors: RestartableReactors, model: Model, sequence: Iterable<fc.AsyncCommand<Model, RestartableReactors>>): Promise<void> {
  await reactors.start();
  try {
    await fc.asyncModelRun(() => ({ model, real: reactors }), sequence);
  } finally {
    await reactors.stop();
  }
}

/** `POST /package/<name>/save` to reactor `at`, then `check` run on a reactor serving the saved `.cap` alone (its workdir `workdir`), stopped after. */
export async function withSaved(real: RestartableReactors, at: number, workdir: string, check: (saved: RestartableReactors) => Promise<void>): Promise<void> {
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
