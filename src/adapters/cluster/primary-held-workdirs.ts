import type { TakenWorkdir, WorkdirHold, Workdirs } from '../../application/ports/workdirs.js';

/**
 * A worker's workdir is its primary's: the primary claimed it (and made it, when
 * temporary) and releases it once, after every worker stopped. A worker claims nothing.
 */
export class PrimaryHeldWorkdirs implements Workdirs {
  async claim(): Promise<WorkdirHold> {
    return { release: async () => undefined };
  }

  claimExisting(): Promise<WorkdirHold> {
    return this.claim();
  }

  async take(workdir: string | undefined): Promise<TakenWorkdir> {
    if (workdir === undefined) throw new Error('a worker serves in its primary\'s workdir, and was given none');
    return { path: workdir, temporary: false, release: async () => undefined };
  }
}
