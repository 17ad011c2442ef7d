import { ContainerModule } from 'inversify';
import { FetchHttpProbe } from '../../adapters/http/fetch-http-probe.js';
import { HttpReactorHost } from '../../adapters/http/http-reactor-host.js';
import { ClusterReactorHost } from '../../adapters/cluster/cluster-reactor-host.js';
import { departedMetrics } from '../../adapters/http/observability/request-metrics.js';
import { sumRequestCounts, type RequestCounts } from '../../application/serving/process-reports.js';
import { PORT, SERVICE } from '../service-ids.js';

/**
 * The worker thread entry that writes JSON access lines: bundled, this module is part of
 * dist/pkg.js and access-log-worker.js is its sibling; run from source there is none, and
 * the lines are written from the event loop.
 */
export const ACCESS_LOG_WORKER = new URL('./access-log-worker.js', import.meta.url);

/** The reports whose counts a worker that is gone leaves in the reactor's: request counts and the Prometheus counters. */
const DEPARTED_FOLDS = {
  requests: async (answers: unknown[]) => sumRequestCounts(answers as RequestCounts[]),
  prometheus: departedMetrics,
};

/** The reactor's server (node:http, express loaded on first use; `--workers`: several processes behind one port) and the HTTP client `pkg package test` probes with. */
export const httpModule = new ContainerModule(({ bind }) => {
  bind(PORT.ReactorHost)
    .toDynamicValue((c) => new ClusterReactorHost(new HttpReactorHost(c.get(SERVICE.ReactorDependencies), c.get(PORT.Workdirs), ACCESS_LOG_WORKER), c.get(PORT.Workdirs), c.get(PORT.OverlayBackends), DEPARTED_FOLDS))
    .inSingletonScope();
  bind(PORT.HttpProbe).toDynamicValue(() => new FetchHttpProbe()).inSingletonScope();
});
