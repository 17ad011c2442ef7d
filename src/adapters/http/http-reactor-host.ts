import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ListenError } from '../../domain/errors.js';
import type { MountRequest, ReactorHost, ReactorSettings, RunningReactor } from '../../application/ports/reactor-host.js';
import { Reactor, type ReactorDependencies } from '../../application/serving/reactor.js';
import { ReactorServer } from './reactor-server.js';
import type { WorkdirHold, Workdirs } from '../../application/ports/workdirs.js';

/** How long after listening the background pass of `--verify lazy` starts when no request came first. */
const BACKGROUND_PASS_DELAY = 50;

/** Loads the mounts, then listens with the http adapter's server. */
export class HttpReactorHost implements ReactorHost {
  constructor(
    private readonly dependencies: ReactorDependencies,
    private readonly workdirs: Workdirs,
  ) {}

  async start(requests: MountRequest[], given: ReactorSettings, options: { quiet?: boolean; warn?: (warning: string) => void } = {}): Promise<RunningReactor> {
    const temporary = given.workdir === undefined ? await mkdtemp(join(tmpdir(), 'pkg-reactor-')) : undefined;
    const settings = { ...given, workdir: resolve(given.workdir ?? temporary!) };
    let hold: WorkdirHold | undefined;
    const removeTemporary = async () => {
      await hold?.release();
      if (temporary) await rm(temporary, { recursive: true, force: true });
    };
    let started;
    try {
      hold = await this.workdirs.claim(settings.workdir);
      started = await Reactor.start(requests, settings, this.dependencies);
    } catch (error) {
      await removeTemporary();
      throw error;
    }
    const { reactor, failures, warnings } = started;
    // Said where the operator looks: an edit that no longer loads (`--watch`; the last good
    // version keeps serving), a lazily verified package out of service (`--verify lazy`).
    reactor.onEvent((event) => {
      if (event.kind !== 'reloaded') options.warn?.(event.problem);
    });
    const server = new ReactorServer(reactor, { quiet: options.quiet });
    let port: number;
    try {
      port = (await server.listen(settings.port, settings.host)).port;
    } catch (error) {
      await reactor.close();
      await removeTemporary();
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
      temporaryWorkdir: temporary !== undefined,
      mounts: reactor.all().map((mount) => ({ prefix: mount.prefix, source: mount.location, name: mount.pkg.name, version: mount.pkg.model.metadata.version })),
      failures,
      warnings,
      stop: async () => {
        clearTimeout(idle);
        await server.close();
        await reactor.close();
        await removeTemporary();
      },
    };
  }
}
