import { describe, expect, it } from '@jest/globals';
import { DependencyCycleError, PackageNotFoundError, RegistryNotConfiguredError, UnsatisfiableConstraintError } from '../../../src/domain/errors.js';
import { bottomUp, resolveDependencies, type ResolutionLookup, type SourceKind } from '../../../src/domain/dependencies/dependency-resolution.js';

/** Packages per source: GUID -> version -> declared dependencies. Scope: the bundles in force, nearest first. */
type World = Partial<Record<Exclude<SourceKind, 'bundle'>, Record<string, Record<string, Record<string, string>>>>>;
type Bundle = Record<string, Record<string, Record<string, string>>>;

function lookup(world: World, bundles: Record<string, Bundle> = {}) {
  const asked: string[] = [];
  const l: ResolutionLookup<string, Bundle[], string> = {
    async offers(kind, guid, scope) {
      asked.push(`${kind}:${guid}`);
      if (kind === 'bundle') return scope.flatMap((bundle) => Object.keys(bundle[guid] ?? {}).map((version) => ({ version, ref: `bundle:${guid}@${version}` })));
      const source = world[kind];
      if (!source) return undefined;
      return Object.keys(source[guid] ?? {}).map((version) => ({ version, ref: `${kind}:${guid}@${version}` }));
    },
    async open(choice, scope) {
      const from = choice.source === 'bundle' ? scope.find((b) => b[choice.guid]?.[choice.version])![choice.guid]! : world[choice.source]![choice.guid]!;
      const own = bundles[`${choice.guid}@${choice.version}`];
      return { opened: choice.ref, dependencies: from[choice.version]!, scope: own ? [own, ...scope] : scope };
    },
  };
  return { lookup: l, asked };
}

const root = (dependencies: Record<string, string>) => ({ guid: 'app', dependencies });

describe('dependency resolution', () => {
  it('picks the newest version that satisfies each accepted range form', async () => {
    const versions = { '1.0.0': {}, '1.2.3': {}, '1.2.9': {}, '1.9.0': {}, '2.0.0': {}, '2.1.0-beta.1': {} };
    const cases: Array<[string, string]> = [
      ['>=1.0.0', '2.0.0'],
      ['^1.2.3', '1.9.0'],
      ['~1.2.3', '1.2.9'],
      ['1.2.3', '1.2.3'],
      ['*', '2.0.0'],
      ['1.x', '1.9.0'],
      ['1.2.x', '1.2.9'],
      ['1', '1.9.0'],
      ['1.2', '1.2.9'],
      ['>=1.0.0, <2.0.0', '1.9.0'],
      ['>=1.2.4 <1.9.0', '1.2.9'],
      ['>=2.1.0-beta.0', '2.1.0-beta.1'],
    ];
    for (const [range, expected] of cases) {
      const [dep] = await resolveDependencies(root({ lib: range }), [], lookup({ store: { lib: versions } }).lookup);
      expect([range, dep!.version]).toEqual([range, expected]);
    }
  });

  it('asks bundle, then store, then registry, and stops at the first that satisfies', async () => {
    const world: World = { store: { lib: { '1.1.0': {} } }, registry: { lib: { '1.5.0': {} }, other: { '3.0.0': {} } } };
    const { lookup: l, asked } = lookup(world);
    const tree = await resolveDependencies(root({ lib: '^1.0.0', other: '3' }), [{ lib: { '1.0.0': {} } }], l);
    expect(tree.map((d) => [d.guid, d.source, d.version])).toEqual([
      ['lib', 'bundle', '1.0.0'],
      ['other', 'registry', '3.0.0'],
    ]);
    expect(asked).toEqual(['bundle:lib', 'bundle:other', 'store:other', 'registry:other']);
    const fromStore = await resolveDependencies(root({ lib: '^1.0.0' }), [], lookup(world).lookup);
    expect([fromStore[0]!.source, fromStore[0]!.version]).toEqual(['store', '1.1.0']);
    // A bundle or store that has the package but no satisfying version falls through.
    const further = await resolveDependencies(root({ lib: '>=1.2.0' }), [{ lib: { '1.0.0': {} } }], lookup(world).lookup);
    expect([further[0]!.source, further[0]!.version]).toEqual(['registry', '1.5.0']);
  });

  it('passes the bundle down to the dependencies of dependencies, and resolves those too', async () => {
    const bundle: Bundle = { lib: { '1.0.0': { base: '^2' } }, base: { '2.3.0': {} } };
    const tree = await resolveDependencies(root({ lib: '1' }), [bundle], lookup({ store: { base: { '2.9.0': {} } } }).lookup);
    expect(tree[0]!.dependencies.map((d) => [d.guid, d.source, d.version, d.chain.join(' -> ')])).toEqual([['base', 'bundle', '2.3.0', 'app -> lib -> base']]);
  });

  it('stops at the first level when asked to (bundling)', async () => {
    const tree = await resolveDependencies(root({ lib: '1' }), [], lookup({ store: { lib: { '1.0.0': { missing: '1' } } } }).lookup, { depth: 1 });
    expect(tree[0]!.dependencies).toEqual([]);
  });

  it('names the chain of a circular dependency', async () => {
    const world: World = { store: { a: { '1.0.0': { b: '1' } }, b: { '1.0.0': { a: '1' } } } };
    const failure = resolveDependencies({ guid: 'a', dependencies: { b: '1' } }, [], lookup(world).lookup);
    await expect(failure).rejects.toThrow(DependencyCycleError);
    await expect(failure).rejects.toThrow('circular dependency: a -> b -> a');
    await expect(resolveDependencies(root({ self: '*' }), [], lookup({ store: { self: { '1.0.0': { self: '*' } } } }).lookup)).rejects.toThrow('self -> self');
  });

  it('reports a missing dependency with its chain, and says when no registry was there to ask', async () => {
    const world: World = { store: { lib: { '1.0.0': { gone: '^1' } } } };
    await expect(resolveDependencies(root({ lib: '1' }), [], lookup(world).lookup)).rejects.toThrow(
      new RegistryNotConfiguredError('dependency app -> lib -> gone (^1) is neither bundled nor in the store, and no registry is configured (--registry or PKG_REGISTRY)'),
    );
    const withRegistry = resolveDependencies(root({ lib: '1' }), [], lookup({ ...world, registry: {} }).lookup);
    await expect(withRegistry).rejects.toThrow(PackageNotFoundError);
    await expect(withRegistry).rejects.toThrow('app -> lib -> gone (^1) is not bundled, not in the store and not in the registry');
  });

  it('lists the versions that exist when none satisfies', async () => {
    const failure = resolveDependencies(root({ lib: '>=3.0.0, <4' }), [], lookup({ store: { lib: { '1.0.0': {} } }, registry: { lib: { '1.0.0': {}, '2.0.0': {} } } }).lookup);
    await expect(failure).rejects.toThrow(UnsatisfiableConstraintError);
    const error = (await failure.catch((e: unknown) => e)) as UnsatisfiableConstraintError;
    expect(error.available).toEqual(['1.0.0', '2.0.0']);
    expect(error.message).toBe('dependency app -> lib (>=3.0.0, <4): no version satisfies >=3.0.0, <4; available: 1.0.0 (store); 1.0.0, 2.0.0 (registry)');
  });

  it('resolves a package met by many paths once, so a lattice of packages costs its packages, not its paths', async () => {
    // p1 depends on p2 and p3, p2 on p3 and p4, ...: the paths from p1 number as the Fibonacci numbers do (75,025 to p25).
    const store: Record<string, Record<string, Record<string, string>>> = {};
    for (let i = 1; i <= 25; i++) store[`p${i}`] = { '1.0.0': Object.fromEntries([i + 1, i + 2].filter((j) => j <= 25).map((j) => [`p${j}`, '1'])) };
    const { lookup: l, asked } = lookup({ store });
    const tree = await resolveDependencies(root({ p1: '1' }), [], l);
    expect(bottomUp(tree).map((d) => d.guid)).toEqual(Array.from({ length: 25 }, (_, i) => `p${25 - i}`));
    expect(asked.length).toBeLessThan(100);
  });

  it('finds a cycle through a package whose dependencies were resolved below another path', async () => {
    // x resolved first below a, where its b is 1.0.0 and depends on nothing; then b 2.0.0 depends on x, whose subtree holds b.
    const world: World = { store: { a: { '1.0.0': { x: '1' } }, x: { '1.0.0': { b: '1' } }, b: { '1.0.0': {}, '2.0.0': { x: '1' } } } };
    await expect(resolveDependencies(root({ a: '1', b: '2' }), [], lookup(world).lookup)).rejects.toThrow(new DependencyCycleError(['app', 'b', 'x', 'b']));
  });

  it('orders packages bottom up: dependencies first, each once', async () => {
    const world: World = { store: { ui: { '1.0.0': { base: '1' } }, theme: { '1.0.0': { base: '1' } }, base: { '1.0.0': {} } } };
    const tree = await resolveDependencies(root({ ui: '1', theme: '1' }), [], lookup(world).lookup);
    expect(bottomUp(tree).map((d) => d.guid)).toEqual(['base', 'ui', 'theme']);
  });
});
