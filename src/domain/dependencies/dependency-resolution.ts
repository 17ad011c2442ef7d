import { DependencyCycleError, PackageNotFoundError, RegistryNotConfiguredError, UnsatisfiableConstraintError, type RegistryError } from '../errors.js';
import { newestSatisfying } from '../package/version-range.js';

/** Where a dependency may come from, in the order they are asked. */
export type SourceKind = 'bundle' | 'store' | 'registry';
export const RESOLUTION_ORDER: readonly SourceKind[] = ['bundle', 'store', 'registry'];

/** One version a source can provide; `ref` is the source's own handle on it. */
export interface Offer<R> {
  version: string;
  ref: R;
}

export interface Choice<R> {
  guid: string;
  range: string;
  version: string;
  source: SourceKind;
  ref: R;
  /** GUIDs from the root down to this one. */
  chain: readonly string[];
}

export interface Opened<P, S> {
  opened: P;
  /** What the opened package itself declares. */
  dependencies: Readonly<Record<string, string>>;
  /** The bundles its own dependencies resolve in: its own, then the ones passed down to it. */
  scope: S;
}

/**
 * What resolution asks of the world. `offers` answers undefined when the source is not
 * configured at all (no store, no registry), which changes the error a miss becomes.
 */
export interface ResolutionLookup<R, S, P> {
  offers(kind: SourceKind, guid: string, scope: S): Promise<readonly Offer<R>[] | undefined>;
  open(choice: Choice<R>, scope: S): Promise<Opened<P, S>>;
}

export interface ResolvedDependency<R, P> extends Choice<R> {
  opened: P;
  dependencies: ResolvedDependency<R, P>[];
}

export interface ResolutionOptions {
  /** 1 resolves only the root's own declarations (bundling's one-level policy); default: all the way down. */
  depth?: number;
}

/**
 * Resolves a package's dependencies, depth first in declaration order. For each one the
 * sources are asked in order (bundle, store, registry) and the first that holds a
 * satisfying version gives its newest; a registry is not asked when the store has one.
 * A GUID already on the chain is a cycle (`a -> b -> a`); a miss is a typed error that
 * names the chain and, when versions exist, lists them.
 *
 * A package met again by another path (a diamond), in the same bundles, has the same
 * dependencies below it: they are resolved once and the subtree shared, so a lattice of
 * packages that depend on each other costs its packages, not its paths (which double with
 * every level: thirty packages each depending on the next two are a million paths).
 */
export async function resolveDependencies<R, S, P>(
  root: { guid: string; dependencies?: Readonly<Record<string, string>> },
  scope: S,
  lookup: ResolutionLookup<R, S, P>,
  options: ResolutionOptions = {},
): Promise<ResolvedDependency<R, P>[]> {
  const depth = options.depth ?? Number.POSITIVE_INFINITY;
  const resolvedIn = new Map<S, Map<string, ResolvedDependency<R, P>[]>>();
  const below = new GuidsBelow<R, P>();
  const walk = async (dependencies: Readonly<Record<string, string>>, chain: readonly string[], within: S, level: number): Promise<ResolvedDependency<R, P>[]> => {
    const resolved: ResolvedDependency<R, P>[] = [];
    for (const [guid, range] of Object.entries(dependencies)) {
      const here = [...chain, guid];
      if (chain.includes(guid)) throw new DependencyCycleError(here);
      const choice = await choose(guid, range, here, within, lookup);
      const { opened, dependencies: own, scope: next } = await lookup.open(choice, within);
      let children: ResolvedDependency<R, P>[] = [];
      if (level < depth) {
        const key = `${choice.source}:${guid}@${choice.version}:${depth - level}`;
        const known = resolvedIn.get(next)?.get(key);
        if (known) {
          // Resolved below another chain: a cycle through this one is one of its GUIDs on this chain.
          const cycle = below.cycle(known, here);
          if (cycle) throw new DependencyCycleError(cycle);
          children = known;
        } else {
          children = below.add(await walk(own, here, next, level + 1));
          if (!resolvedIn.has(next)) resolvedIn.set(next, new Map());
          resolvedIn.get(next)!.set(key, children);
        }
      }
      resolved.push({ ...choice, opened, dependencies: children });
    }
    return resolved;
  };
  return walk(root.dependencies ?? {}, [root.guid], scope, 1);
}

/** The GUIDs in each resolved subtree, so one shared by several paths is searched for a cycle only where one may be. */
class GuidsBelow<R, P> {
  private readonly guids = new WeakMap<readonly ResolvedDependency<R, P>[], ReadonlySet<string>>();

  add(nodes: ResolvedDependency<R, P>[]): ResolvedDependency<R, P>[] {
    const guids = new Set<string>();
    for (const node of nodes) {
      guids.add(node.guid);
      for (const guid of this.of(node.dependencies)) guids.add(guid);
    }
    this.guids.set(nodes, guids);
    return nodes;
  }

  /** The chain from the root to the first node, in resolution order, whose GUID is already on it; undefined when there is none. */
  cycle(nodes: readonly ResolvedDependency<R, P>[], chain: readonly string[]): string[] | undefined {
    if (!chain.some((guid) => this.of(nodes).has(guid))) return undefined;
    for (const node of nodes) {
      const here = [...chain, node.guid];
      if (chain.includes(node.guid)) return here;
      const deeper = this.cycle(node.dependencies, here);
      if (deeper) return deeper;
    }
    return undefined;
  }

  private of(nodes: readonly ResolvedDependency<R, P>[]): ReadonlySet<string> {
    return this.guids.get(nodes) ?? new Set();
  }
}

async function choose<R, S, P>(guid: string, range: string, chain: readonly string[], scope: S, lookup: ResolutionLookup<R, S, P>): Promise<Choice<R>> {
  const seen: Array<{ source: SourceKind; versions: string[] }> = [];
  let registryConfigured = false;
  for (const source of RESOLUTION_ORDER) {
    const offers = await lookup.offers(source, guid, scope);
    if (offers === undefined) continue;
    if (source === 'registry') registryConfigured = true;
    const version = newestSatisfying(
      offers.map((offer) => offer.version),
      range,
    );
    if (version !== undefined) return { guid, range, version, source, ref: offers.find((offer) => offer.version === version)!.ref, chain };
    if (offers.length > 0) seen.push({ source, versions: offers.map((offer) => offer.version) });
  }
  throw unresolved(guid, range, chain, seen, registryConfigured);
}

/** The typed error for a dependency nothing could provide. */
export function unresolved(guid: string, range: string, chain: readonly string[], seen: ReadonlyArray<{ source: SourceKind; versions: readonly string[] }>, registryConfigured: boolean): RegistryError {
  const what = `dependency ${chain.join(' -> ')} (${range})`;
  const noRegistry = registryConfigured ? '' : '; no registry is configured to look further (--registry or PKG_REGISTRY)';
  if (seen.length > 0) {
    const available = [...new Set(seen.flatMap((s) => s.versions))];
    const listed = seen.map((s) => `${s.versions.join(', ')} (${s.source})`).join('; ');
    return new UnsatisfiableConstraintError(`${what}: no version satisfies ${range}; available: ${listed}${noRegistry}`, available);
  }
  if (!registryConfigured) return new RegistryNotConfiguredError(`${what} is neither bundled nor in the store, and no registry is configured (--registry or PKG_REGISTRY)`);
  return new PackageNotFoundError(`${what} is not bundled, not in the store and not in the registry`);
}

/**
 * Every resolved package once, dependencies before their dependents and earlier
 * declarations before later ones: the order their layers stack, bottom up.
 */
export function bottomUp<T extends { guid: string; version: string; dependencies: readonly T[] }>(tree: readonly T[]): T[] {
  const order: T[] = [];
  const placed = new Set<string>();
  const visit = (node: T) => {
    const key = `${node.guid}@${node.version}`;
    if (placed.has(key)) return;
    for (const child of node.dependencies) visit(child);
    placed.add(key);
    order.push(node);
  };
  tree.forEach(visit);
  return order;
}
