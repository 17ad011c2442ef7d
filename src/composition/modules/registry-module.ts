import { ContainerModule } from 'inversify';
import { PORT } from '../service-ids.js';
import { LocalRegistryClients } from '../registry-clients.js';

/** Registries: a directory, or an https base URL reached with got (imported on first use). */
export const registryModule = new ContainerModule(({ bind }) => {
  bind(PORT.RegistryClients).toDynamicValue(() => new LocalRegistryClients()).inSingletonScope();
});
