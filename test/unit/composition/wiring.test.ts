import { describe, expect, it } from '@jest/globals';
import type { ServiceIdentifier } from 'inversify';
import { MemoryArchiveWriter } from '../../fakes/memory-archive-writer.js';
import { SystemClock } from '../../../src/adapters/system/system-clock.js';
import { NodeHasher } from '../../../src/adapters/crypto/node-hasher.js';
import { LocalPackageOpener } from '../../../src/adapters/fs/local-package-opener.js';
import type { Clock } from '../../../src/application/ports/clock.js';
import type { Hasher } from '../../../src/application/ports/hasher.js';
import { createContainer } from '../../../src/composition/container.js';
import { PORT, SERVICE, USE_CASE } from '../../../src/composition/service-ids.js';
import { productionContainer, swap } from '../../support/production-container.js';

const ALL = { ...PORT, ...SERVICE, ...USE_CASE } as Record<string, ServiceIdentifier>;
const FIXED: Clock = { now: () => new Date('2030-01-02T03:04:05Z') };

/** Names of what the container builds from now on, in the order it builds them. */
function recordBuilds(container: ReturnType<typeof createContainer>): string[] {
  const built: string[] = [];
  for (const [name, id] of Object.entries(ALL)) {
    container.onActivation(id, (_context, value) => {
      built.push(name);
      return value;
    });
  }
  return built;
}

describe('the production container', () => {
  it('binds every port, service and use case', () => {
    const container = createContainer();
    for (const [name, id] of Object.entries(ALL)) expect([name, container.get(id)]).toEqual([name, expect.anything()]);
  });

  it('builds nothing until asked, then only what was asked for and what it needs, once', () => {
    const container = createContainer();
    const built = recordBuilds(container);
    expect(built).toEqual([]);
    const verify = container.get(USE_CASE.VerifySignature);
    expect(built.sort()).toEqual(['ArchiveOpener', 'Hasher', 'PackageOpener', 'SignatureCheck', 'SignatureSchemes', 'VerifySignature']);
    expect(container.get(USE_CASE.VerifySignature)).toBe(verify);
    expect(built).toHaveLength(6);
  });

  it('builds the reactor host without building what other commands use', () => {
    const container = createContainer();
    const built = recordBuilds(container);
    container.get(PORT.ReactorHost);
    expect(built).toEqual(expect.arrayContaining(['LoadPackage', 'SavePackage', 'ReactorDependencies', 'Workdirs']));
    for (const unused of ['HttpProbe', 'TestPackage', 'DirectoryWriter', 'UnpackPackage', 'PackageTemplates', 'ContentReferenceScanner']) expect(built).not.toContain(unused);
  });
});

describe('productionContainer (the tests’ fixture)', () => {
  it('rebinds only what a test swaps: services built on it receive the stand-in', () => {
    const archives = new MemoryArchiveWriter();
    const container = productionContainer(swap(PORT.Clock, FIXED), swap(PORT.ArchiveWriter, archives));
    expect(container.get(PORT.Clock)).toBe(FIXED);
    expect(container.get(SERVICE.ReactorDependencies).clock).toBe(FIXED);
    expect(container.get(PORT.ArchiveWriter)).toBe(archives);
    expect(container.get(PORT.Hasher)).toBeInstanceOf(NodeHasher);
    expect(container.get(PORT.PackageOpener)).toBeInstanceOf(LocalPackageOpener);
  });

  it('lets a later swap of the same identifier win', () => {
    const later: Clock = { now: () => new Date(0) };
    expect(productionContainer(swap(PORT.Clock, FIXED), swap(PORT.Clock, later)).get(PORT.Clock)).toBe(later);
  });
});

/**
 * Compile-time checks: `npm run lint` type-checks test/, and each @ts-expect-error fails
 * it if the line below it ever compiles, that is if an identifier stops carrying its type.
 * (Never called: the bindings would be wrong at run time too.)
 */
export function wrongTypesDoNotCompile(): void {
  const container = createContainer();
  const clock = new SystemClock();
  // @ts-expect-error a Clock is not a Hasher
  container.bind(PORT.Hasher).toConstantValue(clock);
  // @ts-expect-error nor is it after a rebind
  container.rebind(PORT.Hasher).toConstantValue(clock);
  // @ts-expect-error a factory must build what the identifier names
  container.bind(PORT.Hasher).toDynamicValue(() => clock);
  // @ts-expect-error what the container gives for Hasher is a Hasher, not a Clock
  const notAClock: Clock = container.get(PORT.Hasher);
  // @ts-expect-error a test's swap is checked the same way
  swap(PORT.Hasher, clock);
  // @ts-expect-error an object that is only part of a Hasher is not one
  swap(PORT.Hasher, {});
  // @ts-expect-error identifiers of different types are not interchangeable
  const hasherId: ServiceIdentifier<Hasher> = PORT.Clock;
  // @ts-expect-error a use case's identifier gives that use case
  container.get(USE_CASE.PackPackage).execute('not the request pack takes');
  void [notAClock, hasherId];
}
