import { afterEach, describe, expect, it } from '@jest/globals';
import type { ReactorEvent } from '../../../src/application/serving/reactor.js';
import { RequestResolver } from '../../../src/application/serving/request-target.js';
import { IntegrityError, PackageOutOfServiceError } from '../../../src/domain/errors.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { MemoryPackageSource } from '../../fakes/memory-package-source.js';
import type { PackageOpener } from '../../../src/application/ports/package-source.js';
import { demoPackage } from '../../support/demo-package.js';
import { securityFor, startReactor } from '../../support/reactor-fixture.js';
import { swap } from '../../support/production-container.js';
import { SERVICE } from '../../../src/composition/service-ids.js';
import { ByteBudget } from '../../../src/application/serving/byte-budget.js';

const files = demoPackage({ 'content/notes.txt': 'plain notes' });
const signedOff = { ...files, 'security.json': securityFor(files) };
const tampered = { ...signedOff, 'content/style.css': 'body { color: red; }' };

let stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(stops.map((stop) => stop()));
  stops = [];
});

async function lazily(opener: MemoryOpener) {
  const started = await startReactor(opener, [{ source: 'site', verify: 'lazy' }]);
  stops.push(started.stop);
  const events: ReactorEvent[] = [];
  started.reactor.onEvent((event) => events.push(event));
  const mount = started.reactor.all()[0]!;
  const resolver = new RequestResolver(started.reactor, () => false);
  return { ...started, mount, events, resolve: (path: string) => resolver.resolve('GET', path).target };
}

describe('a reactor serving with verify: lazy (in-memory adapters)', () => {
  it('mounts a tampered package that eager verification refuses, and refuses its tampered file on first read', async () => {
    const opener = new MemoryOpener().add('site', tampered);
    await expect(startReactor(opener, [{ source: 'site' }])).rejects.toThrow(IntegrityError);
    const { mount, events, resolve, reactor } = await lazily(opener);
    expect(resolve('/index.html')).toMatchObject({ kind: 'file' });
    await expect(mount.pkg.lookup('/style.css')).rejects.toThrow(PackageOutOfServiceError);
    // Every path of the mount is refused from now on, before it is looked up.
    for (const path of ['/index.html', '/api/v1/data/anything', '/notes.txt']) expect(resolve(path)).toMatchObject({ kind: 'refused', error: { code: 'PACKAGE_OUT_OF_SERVICE' } });
    expect(events.map((event) => event.kind)).toEqual(['out-of-service']);
    expect(reactor.packageStatus(mount).valid).toBe(false);
    expect(await reactor.unready()).toEqual(['package demo-site']);
    const validity = await reactor.validity(mount);
    expect(validity).toMatchObject({ valid: false, reason: ['checksum mismatch: content/style.css'] });
  });

  it('gives back the memory a refused file was to take', async () => {
    const budget = new ByteBudget(1024 * 1024);
    const started = await startReactor(new MemoryOpener().add('site', tampered), [{ source: 'site', verify: 'lazy' }], {}, swap(SERVICE.ByteBudget, budget));
    stops.push(started.stop);
    await expect(started.reactor.all()[0]!.pkg.lookup('/style.css')).rejects.toThrow(PackageOutOfServiceError);
    expect(budget.inUse).toBe(0);
  });

  it('takes the package out of service when the background pass finds what no request read', async () => {
    const { mount, events, resolve, reactor } = await lazily(new MemoryOpener().add('site', tampered));
    expect(resolve('/notes.txt')).toMatchObject({ kind: 'file' });
    reactor.verifyInBackground();
    await reactor.validity(mount);
    expect(resolve('/notes.txt')).toMatchObject({ kind: 'refused' });
    expect(events).toEqual([expect.objectContaining({ kind: 'out-of-service', problem: expect.stringMatching(/demo-site .* out of service.*checksum mismatch: content\/style\.css/) })]);
  });

  it('takes the package out of service when its background pass cannot finish, naming no server path', async () => {
    /** Reads work; the streams the whole-package pass hashes fail, as a disk might. */
    class FailingStreams extends MemoryPackageSource {
      override stream(): AsyncIterable<Uint8Array> {
        throw new Error('EIO: i/o error, read /srv/packages/site.cap');
      }
    }
    const opener: PackageOpener = { open: async () => new FailingStreams(signedOff, 'site') };
    const started = await startReactor(opener, [{ source: 'site', verify: 'lazy' }]);
    stops.push(started.stop);
    const mount = started.reactor.all()[0]!;
    expect(await mount.pkg.lookup('/style.css')).toMatchObject({ kind: 'hit' });
    started.reactor.verifyInBackground();
    await expect(started.reactor.validity(mount)).rejects.toThrow(/EIO/);
    expect(mount.pkg.outOfService?.message).toMatch(/the whole-package verification could not finish \(Error\)/);
    expect(mount.pkg.outOfService?.message).not.toContain('/srv');
  });

  it('serves an intact package, whose background pass finds it valid and keeps it in service', async () => {
    const { mount, events, resolve, reactor } = await lazily(new MemoryOpener().add('site', signedOff));
    const found = await mount.pkg.lookup('/style.css');
    expect(found).toMatchObject({ kind: 'hit', file: { etag: `"${JSON.parse(signedOff['security.json'] as string).security.integrityChecks.checksums['content/style.css']}"` } });
    reactor.verifyInBackground();
    expect(await reactor.validity(mount)).toMatchObject({ valid: true });
    expect(resolve('/style.css')).toMatchObject({ kind: 'file' });
    expect(events).toEqual([]);
  });

  it('still refuses at load what the file list alone shows: a declared file missing, a file not covered', async () => {
    const missing = new MemoryOpener().add('site', Object.fromEntries(Object.entries(signedOff).filter(([path]) => path !== 'content/notes.txt')));
    await expect(startReactor(missing, [{ source: 'site', verify: 'lazy' }])).rejects.toThrow(/missing file: content\/notes\.txt/);
    const uncovered = new MemoryOpener().add('site', { ...signedOff, 'content/extra.js': 'x' });
    await expect(startReactor(uncovered, [{ source: 'site', verify: 'lazy' }])).rejects.toThrow(/file not covered by checksums: content\/extra\.js/);
  });

  it('serves a reloaded version afresh: a fixed package is back in service, checked again as read', async () => {
    const opener = new MemoryOpener().add('site', tampered);
    const { mount, resolve, reactor } = await lazily(opener);
    await expect(mount.pkg.lookup('/style.css')).rejects.toThrow(PackageOutOfServiceError);
    opener.add('site', signedOff);
    await reactor.reload(mount);
    expect(resolve('/style.css')).toMatchObject({ kind: 'file' });
    expect(await mount.pkg.lookup('/style.css')).toMatchObject({ kind: 'hit' });
    expect(await reactor.validity(mount)).toMatchObject({ valid: true });
  });
});
