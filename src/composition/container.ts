import { Container, type ContainerModule } from 'inversify';
import { applicationModule } from './modules/application-module.js';
import { archiveModule } from './modules/archive-module.js';
import { authModule } from './modules/auth-module.js';
import { contentModule } from './modules/content-module.js';
import { cryptoModule } from './modules/crypto-module.js';
import { fsModule } from './modules/fs-module.js';
import { httpModule } from './modules/http-module.js';
import { registryModule } from './modules/registry-module.js';
import { systemModule } from './modules/system-module.js';
import { bindReactorWorker, isReactorWorker } from './reactor-worker.js';

/** Every adapter family's module, and the application's: what production runs with. */
export const PRODUCTION_MODULES: readonly ContainerModule[] = [
  archiveModule,
  cryptoModule,
  fsModule,
  httpModule,
  registryModule,
  authModule,
  contentModule,
  systemModule,
  applicationModule,
];

/**
 * The one place that knows every part: each port bound to its adapter, each use case to
 * a factory over the ports (service-ids.ts names them, with their types). Nothing is built
 * until it is resolved, and then once: a command builds what it runs and nothing else.
 * Tests start from this container and rebind only what they swap
 * (test/support/production-container.ts).
 */
export function createContainer(): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.load(...PRODUCTION_MODULES);
  if (isReactorWorker()) bindReactorWorker(container);
  return container;
}
