import type { Cluster } from 'node:cluster';
import type { Container } from 'inversify';
import { HttpReactorHost } from '../adapters/http/http-reactor-host.js';
import { IpcOverlayStore } from '../adapters/cluster/ipc-overlay-store.js';
import { IpcSessionRevocationStore } from '../adapters/cluster/ipc-session-revocations.js';
import { PrimaryHeldWorkdirs } from '../adapters/cluster/primary-held-workdirs.js';
import { processChannel } from '../adapters/cluster/process-channels.js';
import { WorkerLink } from '../adapters/cluster/worker-link.js';
import { WORKER_ENV } from '../adapters/cluster/worker-pool.js';
import { WorkerReactorHost } from '../adapters/cluster/worker-reactor-host.js';
import { nodeModule } from '../adapters/shared/node-module.js';
import { threadPasswordHashes } from './modules/auth-module.js';
import { ACCESS_LOG_WORKER } from './modules/http-module.js';
import { SelectedOverlayBackends } from './overlay-backends.js';
import { PORT, SERVICE } from './service-ids.js';

/** Whether this process is a worker a `pkg reactor serve --workers N` primary forked. */
export function isReactorWorker(): boolean {
  return process.env[WORKER_ENV.role] === '1' && nodeModule<Cluster>('node:cluster').isWorker;
}

/**
 * A worker's wiring: the workdir is the primary's (claimed there), the workdir's files are
 * written by the primary (a database named by `--overlay` is used directly), reports
 * are gathered from every worker through the primary, and each worker checks passwords on
 * one thread of its own (as many threads as workers, which are one per core at most).
 */
export function bindReactorWorker(container: Container): void {
  let link: WorkerLink | undefined;
  const started = Number(process.env[WORKER_ENV.started]);
  const primary = () => (link ??= new WorkerLink(processChannel(), Number.isFinite(started) ? new Date(started) : new Date()));
  container.rebind(PORT.Workdirs).toConstantValue(new PrimaryHeldWorkdirs());
  container
    .rebind(PORT.OverlayBackends)
    .toDynamicValue((c) => new SelectedOverlayBackends({ overlays: new IpcOverlayStore(primary()), revocations: new IpcSessionRevocationStore(primary(), c.get(PORT.SessionRevocationStore)) }))
    .inSingletonScope();
  container.rebind(PORT.PasswordHashes).toDynamicValue(() => threadPasswordHashes(1)).inSingletonScope();
  container
    .rebind(PORT.ReactorHost)
    .toDynamicValue((c) => new WorkerReactorHost(new HttpReactorHost({ ...c.get(SERVICE.ReactorDependencies), processes: primary() }, c.get(PORT.Workdirs), ACCESS_LOG_WORKER), primary(), process.env[WORKER_ENV.workdir]!, (code) => process.exit(code)))
    .inSingletonScope();
}
