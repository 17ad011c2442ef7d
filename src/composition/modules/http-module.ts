import { ContainerModule } from 'inversify';
import { FetchHttpProbe } from '../../adapters/http/fetch-http-probe.js';
import { HttpReactorHost } from '../../adapters/http/http-reactor-host.js';
import { PORT, SERVICE } from '../service-ids.js';

/** The reactor's server (node:http, express loaded on first use) and the HTTP client `pkg package test` probes with. */
export const httpModule = new ContainerModule(({ bind }) => {
  bind(PORT.ReactorHost)
    .toDynamicValue((context) => new HttpReactorHost(context.get(SERVICE.ReactorDependencies), context.get(PORT.Workdirs)))
    .inSingletonScope();
  bind(PORT.HttpProbe).toDynamicValue(() => new FetchHttpProbe()).inSingletonScope();
});
