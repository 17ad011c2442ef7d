import { BUNDLE_INDEX_FILE, parseBundleIndex, type BundledPackage, type BundleIndex } from '../../domain/dependencies/bundle-index.js';
import { bottomUp, resolveDependencies, type Choice, type ResolutionLookup, type ResolutionOptions, type ResolvedDependency, type SourceKind } from '../../domain/dependencies/dependency-resolution.js';
import type { RegistryIndex, RegistryVersion } from '../../domain/dependencies/registry-index.js';
import { IntegrityError, InvalidPackageError, UsageError } from '../../domain/errors.js';
import type { Metadata } from '../../domain/package/metadata.js';
import type { FileWriter } from '../ports/file-writer.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';
import type { PackageStores } from '../ports/package-store.js';
import type { RegistryClient, RegistryClients } from '../ports/registry-client.js';
import { refuseEncrypted } from '../signing/envelope-opener.js';
import type { InstallPackage } from '../use-cases/install-package.js';
import { OwnedSource } from './owned-source.js';
import { ShownAsSource } from './shown-as-source.js';
import { readOptional, readPackage, type PackageModel } from './package-reader.js';
import { verifiedBytes } from './verified-bytes.js';

/** Where dependencies may come from besides the bundle: `--store`/`PKG_STORE`, `--registry`/`PKG_REGISTRY`. */
export interface DependencyContext {
  store?: string;
  registry?: string;
  /**
   * The private folder bundled packages are copied out into: the reactor's, for plaintext,
   * emptied when it starts and stops, so a crash leaves none of a decrypted package's
   * bundle behind. Without it, the system's temporary folder.
   */
  copiesInto?: string;
}

/** A resolved dependency, opened: its package, its configuration and its own resolved dependencies. */
export interface LoadedDependency {
  guid: string;
  range: string;
  version: string;
  source: SourceKind;
  /** The store `.cap`, or the bundled `packages/<name>-<version>.cap` and the package holding it. */
  location: string;
  pkg: PackageSource;
  model: PackageModel;
  chain: readonly string[];
  dependencies: LoadedDependency[];
}

/** The dependency tree of one package; closing it closes every package it opened. */
export class DependencyTree {
  constructor(
    readonly roots: readonly LoadedDependency[],
    private readonly opened: readonly PackageSource[],
  ) {}

  /** Each package once, dependencies below their dependents: the order their layers stack. */
  bottomUp(): LoadedDependency[] {
    return bottomUp(this.roots);
  }

  async close(): Promise<void> {
    await Promise.all(this.opened.map((source) => source.close().catch(() => undefined)));
  }
}

type Scope = ReadonlyArray<{ index: BundleIndex; holder: PackageSource }>;
type Ref = { kind: 'bundle'; holder: PackageSource; entry: BundledPackage } | { kind: 'store'; path: string } | { kind: 'registry'; name: string; entry: RegistryVersion };
interface Opened {
  location: string;
  pkg: PackageSource;
  model: PackageModel;
}

/**
 * Resolves and opens a package's dependencies (bundle, then store, then registry, the
 * newest satisfying version of each), for the reactor's layers, `info`'s tree and
 * `pack --bundle`. A bundled `.cap` is copied out only if its SHA-256 matches
 * packages/index.json (IntegrityError otherwise); one from the registry is installed
 * into the store first.
 */
export class DependencyLoader {
  constructor(
    private readonly opener: PackageOpener,
    private readonly hasher: Hasher,
    private readonly files: FileWriter,
    private readonly stores: PackageStores,
    private readonly registries: RegistryClients,
    private readonly installer: InstallPackage,
    /** A fresh path, in `directory` when given, for a bundled package copied out of its holder (removed when the tree is closed). */
    private readonly scratchFile: (directory?: string) => string,
  ) {}

  async resolve(holder: PackageSource, metadata: Metadata, context: DependencyContext, options: ResolutionOptions = {}): Promise<DependencyTree> {
    const opened: PackageSource[] = [];
    const openings = new Map<string, Promise<{ result: Opened; own: BundleIndex | undefined }>>();
    // The same object for the same package's bundle over the same scope: resolution shares what it resolved in one scope.
    const scopes = new Map<string, Map<Scope, Scope>>();
    let registry: { client: RegistryClient; index: Promise<RegistryIndex> } | undefined;
    const registryIndex = () => {
      if (!registry) {
        const client = this.registries.open(context.registry!);
        registry = { client, index: client.index() };
      }
      return registry;
    };
    const lookup: ResolutionLookup<Ref, Scope, Opened> = {
      offers: async (kind, guid, scope) => {
        if (kind === 'bundle') return scope.flatMap(({ index, holder: h }) => (index[guid] ? [{ version: index[guid].version, ref: { kind, holder: h, entry: index[guid] } as Ref }] : []));
        if (kind === 'store') {
          if (!context.store) return undefined;
          return (await this.stores.open(context.store).versions(guid)).map(({ version, path }) => ({ version, ref: { kind, path } as Ref }));
        }
        if (!context.registry) return undefined;
        const published = (await registryIndex().index).packages[guid];
        return Object.entries(published?.versions ?? {}).map(([version, entry]) => ({ version, ref: { kind, name: published!.name, entry } as Ref }));
      },
      open: async (choice, scope) => {
        const key = `${choice.source}:${choice.guid}@${choice.version}`;
        let opening = openings.get(key);
        if (!opening) {
          opening = this.open(choice, context, registry?.client, opened).then(async (result) => ({ result, own: await readOptional(result.pkg, BUNDLE_INDEX_FILE, parseBundleIndex) }));
          openings.set(key, opening);
        }
        const { result, own } = await opening;
        if (!own) return { opened: result, dependencies: result.model.metadata.dependencies ?? {}, scope };
        if (!scopes.has(key)) scopes.set(key, new Map());
        const within = scopes.get(key)!;
        if (!within.has(scope)) within.set(scope, [{ index: own, holder: result.pkg }, ...scope]);
        return { opened: result, dependencies: result.model.metadata.dependencies ?? {}, scope: within.get(scope)! };
      },
    };
    try {
      const rootBundle = await readOptional(holder, BUNDLE_INDEX_FILE, parseBundleIndex);
      // A root without a GUID (0.1.x metadata) still heads its chain, under its name.
      const tree = await resolveDependencies({ guid: metadata.guid ?? metadata.name, ...(metadata.dependencies ? { dependencies: metadata.dependencies } : {}) }, rootBundle ? [{ index: rootBundle, holder }] : [], lookup, options);
      const shared = new Map<readonly ResolvedDependency<Ref, Opened>[], LoadedDependency[]>();
      return new DependencyTree(tree.map((node) => loaded(node, shared)), opened);
    } catch (error) {
      await new DependencyTree([], opened).close();
      throw error;
    }
  }

  private async open(choice: Choice<Ref>, context: DependencyContext, registry: RegistryClient | undefined, opened: PackageSource[]): Promise<Opened> {
    const { ref } = choice;
    let location: string;
    let pkg: PackageSource;
    if (ref.kind === 'bundle') {
      location = `${ref.entry.file} in ${ref.holder.location}`;
      pkg = await this.copyOut(ref.holder, ref.entry, choice.guid, location, context.copiesInto);
    } else if (ref.kind === 'store') {
      location = ref.path;
      pkg = await this.opener.open(ref.path);
    } else {
      if (!context.store) throw new UsageError(`dependency ${choice.chain.join(' -> ')} comes from registry ${registry!.display}, which needs a store to install it into: use --store or set PKG_STORE`);
      location = (await this.installer.installVersion(registry!, context.store, { guid: choice.guid, name: ref.name, version: choice.version, entry: ref.entry })).path;
      pkg = await this.opener.open(location);
    }
    opened.push(pkg);
    refuseEncrypted(pkg, 'depend on');
    const model = await readPackage(pkg, { generate: 'serving' });
    if (model.metadata.guid !== choice.guid || model.metadata.version !== choice.version)
      throw new InvalidPackageError(`${location} is ${model.metadata.guid} ${model.metadata.version}, not ${choice.guid} ${choice.version} as it was listed`);
    return { location, pkg, model };
  }

  /** A bundled `.cap` (`known`: its entry and the package holding it), copied out whole only when its bytes are the ones packages/index.json names. */
  private async copyOut(holder: PackageSource, entry: BundledPackage, guid: string, known: string, directory: string | undefined): Promise<PackageSource> {
    const where = `bundled dependency ${guid} (${known})`;
    if (!holder.has(entry.file)) throw new IntegrityError(`${where}: ${BUNDLE_INDEX_FILE} names a file the package does not hold`);
    const path = this.scratchFile(directory);
    const bytes = verifiedBytes(holder.stream(entry.file), entry, this.hasher, (found) => new IntegrityError(`${where}: sha256 is ${found.sha256}, ${BUNDLE_INDEX_FILE} says ${entry.sha256}`, { mismatched: [entry.file], missing: [], uncovered: [] }));
    await this.files.write(path, bytes, { overwrite: false, mode: 0o600 });
    try {
      // Named as the entry in its package: the copy is a temporary file the user never named.
      return new ShownAsSource(new OwnedSource(await this.opener.open(path), () => this.files.remove(path)), known);
    } catch (error) {
      await this.files.remove(path);
      throw namedAs(error, path, known);
    }
  }
}

/** An error about the temporary copy of a bundled package, told of the file the user knows: its entry in the package. */
function namedAs(error: unknown, path: string, known: string): unknown {
  if (error instanceof Error && error.message.includes(path)) error.message = error.message.split(path).join(known);
  return error;
}

/** The tree as resolution made it: a subtree it shared between paths is one subtree here too. */
function loaded(node: ResolvedDependency<Ref, Opened>, shared: Map<readonly ResolvedDependency<Ref, Opened>[], LoadedDependency[]>): LoadedDependency {
  const { guid, range, version, source, chain, opened } = node;
  if (!shared.has(node.dependencies)) shared.set(node.dependencies, node.dependencies.map((child) => loaded(child, shared)));
  return { guid, range, version, source, chain, location: opened.location, pkg: opened.pkg, model: opened.model, dependencies: shared.get(node.dependencies)! };
}
