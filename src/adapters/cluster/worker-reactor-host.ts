import type { MountRequest, ReactorHost, ReactorSettings, RunningReactor } from '../../application/ports/reactor-host.js';
import { sendError } from './channel.js';
import type { WorkerLink } from './worker-link.js';


/**
 * A reactor's worker process: it serves as a reactor of one process would, in the
 * primary's workdir (which the primary holds), tells the primary when it listens (or why
 * it could not start), and stops when the primary says so or is gone.
 */
export class WorkerReactorHost implements ReactorHost {
  constructor(
    private readonly inner: ReactorHost,
    private readonly link: WorkerLink,
    /** The primary's workdir, which it holds. */
    private readonly workdir: string,
    /** Ends this process: a worker that could not start has said why to its primary, which reports it once. */
    private readonly exit: (code: number) => void,
  ) {}

  async start(requests: MountRequest[], given: ReactorSettings, options: { quiet?: boolean; warn?: (warning: string) => void } = {}): Promise<RunningReactor> {
    const settings = { ...given, workdir: this.workdir, workers: 1 };
    let running: RunningReactor;
    try {
      running = await this.inner.start(requests, settings, options);
    } catch (error) {
      await this.link.failed(error);
      this.exit(1);
      throw error;
    }
    const { stop, ...summary } = running;
    this.link.ready({ ...summary, failures: summary.failures.map((failure) => ({ ...failure, error: sendError(failure.error) })) });
    return {
      ...running,
      stopRequested: this.link.stopRequested,
      stop: async () => {
        await stop();
        this.link.close();
      },
    };
  }
}
