import type { MountRequest, ReactorHost, ReactorSettings, RunningReactor } from '../../application/ports/reactor-host.js';
import type { OverlayBackend, OverlayBackends } from '../../application/ports/overlay-store.js';
import type { Workdirs } from '../../application/ports/workdirs.js';
import { DEFAULT_SHUTDOWN_TIMEOUT } from '../../application/serving/reactor.js';
import { receivedError } from './channel.js';
import type { DepartedFolds } from './primary-link.js';
import { WorkerPool } from './worker-pool.js';

/**
 * `--workers N`: this process becomes the primary of N worker processes that serve behind
 * one port. It holds the workdir (making the temporary one), writes the workdir's overlay
 * files for the workers (one writer) unless they share a database, speaks for the reactor
 * at start, and cleans up once when stopped. One worker, the default, is this process
 * serving alone, as ever.
 */
export class ClusterReactorHost implements ReactorHost {
  constructor(
    private readonly single: ReactorHost,
    private readonly workdirs: Workdirs,
    private readonly backends: OverlayBackends,
    private readonly folds: DepartedFolds = {},
  ) {}

  async start(requests: MountRequest[], settings: ReactorSettings, options: { quiet?: boolean; warn?: (warning: string) => void } = {}): Promise<RunningReactor> {
    const count = settings.workers ?? 1;
    if (count <= 1) return this.single.start(requests, settings, options);
    const workdir = await this.workdirs.take(settings.workdir);
    let backend: OverlayBackend | undefined;
    let pool: WorkerPool | undefined;
    const cleanUp = async () => {
      await pool?.stop();
      await backend?.close();
      await workdir.release();
    };
    try {
      // With a database, each worker uses it itself; with files, the primary is their one writer.
      backend = settings.overlay ? undefined : await this.backends.open(undefined);
      pool = new WorkerPool({ count, workdir: workdir.path, backend, shutdownTimeout: settings.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT, warn: options.warn ?? (() => undefined), folds: this.folds });
      const first = await pool.start();
      let stopped: Promise<void> | undefined;
      return {
        url: first.url,
        port: first.port,
        workdir: workdir.path,
        temporaryWorkdir: workdir.temporary,
        mounts: first.mounts,
        failures: first.failures.map((failure) => ({ ...failure, error: receivedError(failure.error) })),
        warnings: first.warnings,
        ...(first.sharedOverlay ? { sharedOverlay: first.sharedOverlay } : {}),
        workers: count,
        stop: () => (stopped ??= cleanUp()),
      };
    } catch (error) {
      await cleanUp();
      throw error;
    }
  }
}
