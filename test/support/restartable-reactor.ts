import fc from 'fast-check';
import { FsOverlayStore } from '../../src/adapters/fs/fs-overlay-store.js';
import { PORT } from '../../src/composition/service-ids.js';
import { productionOpener, swap } from './production-container.js';
import { startListening } from './listening-reactor.js';

/**
 * A reactor as production wires it over one package directory, its overlays in the
 * workdir's files as by default, listening on loopback: stopped and started again on the
 * same workdir, as a model test's restarts want.
 */
export class RestartableReactor {
  private fixture: Awaited<ReturnType<typeof startListening>> | undefined;

  constructor(
    private readonly site: string,
    private readonly workdir: string,
  ) {}

  get base(): string {
    return this.fixture!.base;
  }

  async start(): Promise<void> {
    this.fixture = await startListening(productionOpener(), [{ source: this.site }], { workdir: this.workdir }, swap(PORT.OverlayStore, new FsOverlayStore()));
  }

  async stop(): Promise<void> {
    await this.fixture?.stop();
    this.fixture = undefined;
  }
}

/** Runs a sequence of model commands against a reactor started for it on a fresh workdir. */
export async function runOnReactor<Model extends object>(site: string, workdir: string, model: Model, sequence: Iterable<fc.AsyncCommand<Model, RestartableReactor>>): Promise<void> {
  const real = new RestartableReactor(site, workdir);
  await real.start();
  try {
    await fc.asyncModelRun(() => ({ model, real }), sequence);
  } finally {
    await real.stop();
  }
}
