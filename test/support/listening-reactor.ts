import type { AddressInfo } from 'node:net';
import type { MountRequest, ReactorSettings } from '../../src/application/ports/reactor-host.js';
import type { PackageOpener } from '../../src/application/ports/package-source.js';
import { ZipArchiveWriter } from '../../src/adapters/archive/zip-archive-writer.js';
import type { Swap } from './production-container.js';
import { securityFor, startReactor } from './reactor-fixture.js';

/** A reactor as production wires it (see startReactor), listening on a free loopback port; every source must load. */
export async function startListening(opener: PackageOpener, requests: MountRequest[], settings: Partial<ReactorSettings> = {}, ...swaps: Swap[]) {
  const fixture = await startReactor(opener, requests, settings, ...swaps);
  if (fixture.failures.length > 0) {
    await fixture.stop();
    throw new Error(`sources did not load: ${fixture.failures.map((failure) => `${failure.source}: ${String(failure.error)}`).join('; ')}`);
  }
  const address: AddressInfo = await fixture.server.listen(0, '127.0.0.1');
  return { ...fixture, base: `http://127.0.0.1:${address.port}` };
}

/** A `.cap` of `files` with its security.json, as pack writes it; the entries named in `stored` are stored, the others deflated. */
export async function writeCap(directory: string, name: string, files: Record<string, string | Uint8Array>, stored: readonly string[] = []): Promise<string> {
  const sink = await new ZipArchiveWriter().create(directory, name, { overwrite: false });
  for (const [path, data] of Object.entries(files)) await sink.add(path, Buffer.from(data), { store: stored.includes(path) });
  await sink.add('security.json', Buffer.from(securityFor(files)), { store: false });
  return (await sink.commit()).path;
}
