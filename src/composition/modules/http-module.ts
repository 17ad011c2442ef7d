import { ContainerModule } from 'inversify';
import { FetchHttpProbe } from '../../adapters/http/fetch-http-probe.js';
import { HttpReactorHost } from '../../adapters/http/http-reactor-host.js';
import { ClusterReactorHost } from '../../adapters/cluster/cluster-reactor-host.js';
import { PORT, SERVICE } from '../service-ids.js';

/**
 * The worker thread entry that writes JSON access lines: bundled, this module is part of
 * dist/pkg.js and access-log-worker.js is its sibling; run from source there is none, and
 * the lines are written from the event loop.
 */
export const ACCESS_LOG_WORKER = new URL('./access-log-worker.js', import.meta.url);

/** The reactor's server (node:http, express loaded on first use; `--workers`: several processes behind one port) and the HTTP client `pkg package test` probes with. */
export const httpModule = new ContainerModule(({ bind }) => {
  bind(PORT.ReactorHost)
    .toDynamicValue((c) => new ClusterReactorHost(new HttpReactorHost(c.get(SERVICE.ReactorDependencies), c.get(PORT.Workdirs), ACCESS_LOG_WORKER), c.get(PORT.Workdirs), c.get(PORT.OverlayBackends)))
    .inSingletonScope();
  bind(PORT.HttpProbe).toDynamicValue(() => new FetchHttpProbe()).inSingletonScope();
});
