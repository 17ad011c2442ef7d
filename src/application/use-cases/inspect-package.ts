import type { Metadata } from '../../domain/package/metadata.js';
import { routesDocument } from '../../domain/package/routes.js';
import { storageDocument } from '../../domain/package/storage.js';
import { readPackage, type PackageModel } from '../package/package-reader.js';
import type { PackageOpener } from '../ports/package-source.js';
import { PackageError, SignatureMismatchError } from '../../domain/errors.js';
import type { SourceKind } from '../../domain/dependencies/dependency-resolution.js';
import type { DependencyContext, DependencyLoader, LoadedDependency } from '../package/dependency-loader.js';
import type { PackageSource } from '../ports/package-source.js';
import { refuseEncrypted } from '../signing/envelope-opener.js';
import type { SignatureCheck } from '../signing/signature-check.js';

export type InspectItem = 'info' | 'manifest' | 'routes' | 'metadata' | 'storage';

export interface PackageInfo extends Pick<Metadata, 'name' | 'version' | 'description' | 'guid' | 'uuid' | 'author' | 'license'> {
  source: string;
  kind: string;
  files: number;
  bytes: number;
  readOnly: boolean;
  signed: boolean;
  datasets: string[];
  routes: number;
  generated: string[];
  dependencies: Array<{ guid: string; range: string }>;
  /** The declared dependencies resolved, all the way down; absent when there are none. */
  resolved?: ResolvedNode[];
  /** Why the dependencies could not be resolved (`<TypedError>: <message>`). */
  unresolved?: string;
}

/** One node of the resolved tree: declared GUID and range, the version it resolved to, and where that is. */
export interface ResolvedNode {
  guid: string;
  range: string;
  version: string;
  source: SourceKind;
  file: string;
  dependencies: ResolvedNode[];
  /** Met earlier in the tree, its dependencies listed there: each package's are listed once, as a lattice of them has exponentially many paths. */
  deduped?: true;
}

/** Prints a package's configuration in its canonical, normalized form. */
export class InspectPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly signatures: SignatureCheck,
    private readonly dependencies?: DependencyLoader,
  ) {}

  /** `warn` hears what reading accepted but a current package would not have (0.1.x metadata): reading never refuses it. */
  async execute(location: string, item: InspectItem, context: DependencyContext = {}, warn: (warning: string) => void = () => undefined): Promise<unknown> {
    const source = await this.opener.open(location);
    try {
      refuseEncrypted(source, item === 'info' ? 'inspect' : `print the ${item} of`);
      const model = await readPackage(source);
      for (const warning of model.warnings) warn(warning);
      if (model.security?.digitalSignatures) {
        const verdict = await this.signatures.check(source, model.security);
        if (!verdict.valid) throw new SignatureMismatchError(`${location}: ${verdict.reason}`);
      }
      switch (item) {
        case 'metadata':
          return model.metadata;
        case 'manifest':
          return model.manifest;
        case 'routes':
          return routesDocument(model.routes);
        case 'storage':
          return model.storage ? storageDocument(model.storage) : null;
        case 'info':
          return { ...info(model, source.location, source.kind, source.entries()), ...(await this.tree(source, model, context)) };
      }
    } finally {
      await source.close();
    }
  }

  /** A tree that cannot be resolved is reported, not thrown: the rest of info is still worth printing. */
  private async tree(source: PackageSource, model: PackageModel, context: DependencyContext): Promise<Pick<PackageInfo, 'resolved' | 'unresolved'>> {
    if (!this.dependencies || Object.keys(model.metadata.dependencies ?? {}).length === 0) return {};
    try {
      const tree = await this.dependencies.resolve(source, model.metadata, context);
      await tree.close();
      const listed = new Set<string>();
      return { resolved: tree.roots.map((root) => node(root, listed)) };
    } catch (error) {
      if (!(error instanceof PackageError)) throw error;
      return { unresolved: `${error.name}: ${error.message}` };
    }
  }
}

/** `listed`: the packages whose dependencies were listed already, as `<source>:<guid>@<version>`. */
function node(dependency: LoadedDependency, listed: Set<string>): ResolvedNode {
  const { guid, range, version, source, location } = dependency;
  const shown = { guid, range, version, source, file: location };
  const key = `${source}:${guid}@${version}`;
  if (dependency.dependencies.length > 0 && listed.has(key)) return { ...shown, dependencies: [], deduped: true };
  listed.add(key);
  return { ...shown, dependencies: dependency.dependencies.map((child) => node(child, listed)) };
}

function info(model: PackageModel, location: string, kind: string, entries: readonly { size: number }[]): PackageInfo {
  const { metadata } = model;
  const result: PackageInfo = {
    name: metadata.name,
    version: metadata.version,
    description: metadata.description,
    guid: metadata.guid,
    uuid: metadata.uuid,
    source: location,
    kind,
    files: entries.length,
    bytes: entries.reduce((sum, entry) => sum + entry.size, 0),
    readOnly: metadata.readOnly === true,
    signed: model.security?.digitalSignatures !== undefined,
    datasets: Object.keys(model.storage?.dataSets ?? {}),
    routes: model.routes.routes.length,
    generated: [...(model.manifestGenerated ? ['manifest.json'] : []), ...(model.routesGenerated ? ['routes.json'] : [])],
    dependencies: Object.entries(metadata.dependencies ?? {}).map(([guid, range]) => ({ guid, range })),
  };
  if (metadata.author) result.author = metadata.author;
  if (metadata.license) result.license = metadata.license;
  return result;
}
