import type { Container } from 'inversify';
import { NodeHasher } from '../../src/adapters/crypto/node-hasher.js';
import { ReactorServer } from '../../src/adapters/http/reactor-server.js';
import { Reactor } from '../../src/application/serving/reactor.js';
import type { MountRequest, ReactorSettings } from '../../src/application/ports/reactor-host.js';
import type { PackageOpener } from '../../src/application/ports/package-source.js';
import { PORT, SERVICE } from '../../src/composition/service-ids.js';
import { MemoryOverlayStore } from '../fakes/memory-overlay-store.js';
import { productionContainer, swap, type Swap } from './production-container.js';

export const hasher = new NodeHasher();

export const SETTINGS: ReactorSettings = { port: 0, host: '127.0.0.1', cacheControl: 'public, max-age=31536000', workdir: '/tmp/unused' };

/**
 * A reactor as production wires it, over the given opener and with overlays in memory
 * unless a swap says otherwise, with its server (not listening: supertest drives it).
 */
export function startReactor(opener: PackageOpener, requests: MountRequest[], settings: Partial<ReactorSettings> = {}, ...swaps: Swap[]) {
  return startReactorIn(productionContainer(swap(PORT.PackageOpener, opener), swap(PORT.OverlayStore, new MemoryOverlayStore()), ...swaps), requests, settings);
}

/** A reactor built from the given container (the production one with a test's swaps), with its server. */
export async function startReactorIn(container: Container, requests: MountRequest[], settings: Partial<ReactorSettings> = {}) {
  const { reactor, failures, warnings } = await Reactor.start(requests, { ...SETTINGS, ...settings }, container.get(SERVICE.ReactorDependencies));
  const lines: string[] = [];
  const server = new ReactorServer(reactor, { log: (text) => void lines.push(...text.trim().split('\n')) });
  return { reactor, failures, warnings, server, http: server.httpServer, lines, stop: () => server.close().then(() => reactor.close()) };
}

/** security.json content for a set of files, as pack writes it. */
export function securityFor(files: Record<string, string | Uint8Array>): string {
  const checksums = Object.fromEntries(Object.entries(files).map(([path, bytes]) => [path, hasher.sha256(bytes)]));
  return JSON.stringify({ security: { integrityChecks: { checksums } } });
}
