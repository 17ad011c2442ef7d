import type { ServerResponse } from 'node:http';
import { ListenError } from '../../domain/errors.js';
import type { MountRequest, ReactorHost, ReactorSettings, RunningReactor } from '../../application/ports/reactor-host.js';
import { Reactor, type ReactorDependencies } from '../../application/serving/reactor.js';
import { ReactorServer } from './reactor-server.js';
import type { Workdirs } from '../../application/ports/workdirs.js';

/** How long after listening the background pass of `--verify lazy` starts when no request came first. */
const BACKGROUND_PASS_DELAY = 50;

/** Loads the mounts, then listens with the http adapter's server. */
export class HttpReactorHost implements ReactorHost {
  constructor(
    private readonly dependencies: ReactorDependencies,
    private readonly workdirs: Workdirs,
    /** The entry of the thread that writes JSON access lines (the composition root's `access-log-worker`). */
    private readonly accessLogWorker?: URL,
  ) {}

  async start(requests: MountRequest[], given: ReactorSettings, options: { quiet?: boolean; warn?: (warning: string) => void } = {}): Promise<RunningReactor> {
    const workdir = await this.workdirs.take(given.workdir);
    const settings = { ...given, workdir: workdir.path };
    let started;
    try {
      started = await Reactor.start(requests, settings, this.dependencies);
    } catch (error) {
      await workdir.release();
      throw error;
    }
    const { reactor, failures, warnings } = started;
    // Said where the operator looks: an edit that no longer loads (`--watch`; the last good
    // version keeps serving), a lazily verified package out of service (`--verify lazy`).
    reactor.onEvent((event) => {
      if (event.kind !== 'reloaded') options.warn?.(event.problem);
    });
    const server = new ReactorServer(reactor, { quiet: options.quiet, ...(this.accessLogWorker ? { accessLogWorker: this.accessLogWorker } : {}) });
    let port: number;
    try {
      port = (await server.listen(settings.port, settings.host)).port;
    } catch (error) {
      await reactor.close();
      await workdir.release();
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'EADDRINUSE' ? 'is in use' : code === 'EACCES' ? 'is not allowed' : `cannot be used (${(error as Error).message})`;
      throw new ListenError(`port ${settings.port} on ${settings.host} ${reason}`);
    }
    // `--verify lazy` answers first: the whole-package pass (a child to fork, every checksum
    // to send it) starts once the first answer is out, or shortly after listening without one.
    let verifying = false;
    const verify = () => {
      if (verifying) return;
      verifying = true;
      clearTimeout(idle);
      reactor.verifyInBackground();
    };
    const idle = setTimeout(verify, BACKGROUND_PASS_DELAY).unref();
    server.httpServer.once('request', (_request, response: ServerResponse) => response.once('close', verify));
    const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
    return {
      url: `http://${host}:${port}`,
      port,
      workdir: settings.workdir,
      ...(reactor.backend.overlays.shared ? { sharedOverlay: reactor.backend.overlays.description } : {}),
      temporaryWorkdir: workdir.temporary,
      mounts: reactor.all().map((mount) => ({ prefix: mount.prefix, source: mount.location, name: mount.pkg.name, version: mount.pkg.model.metadata.version })),
      failures,
      warnings,
      stop: async () => {
        clearTimeout(idle);
        await server.close();
        await reactor.close();
        await workdir.release();
      },
    };
  }
}
