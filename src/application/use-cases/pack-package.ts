import { SECURITY_FILE, isSigningArtifact } from '../../domain/package/package-paths.js';
import type { PackFile, PackPipeline, PackResult, PackTarget } from '../package/pack-pipeline.js';
import { readPackage, toJsonBytes } from '../package/package-reader.js';
import { readTombstones } from '../package/package-layer-stack.js';
import { identified } from '../../domain/package/metadata.js';
import { packedConfigFiles } from '../package/generated-files.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';
import { BUNDLE_DIR, BUNDLE_INDEX_FILE, type BundleIndex } from '../../domain/dependencies/bundle-index.js';
import { packageFileName, parsePackageFileName } from '../../domain/dependencies/package-file-name.js';
import { PackageFormatError } from '../../domain/errors.js';
import type { DependencyContext, DependencyLoader } from '../package/dependency-loader.js';
import type { PackageModel } from '../package/package-reader.js';
import type { Hasher } from '../ports/hasher.js';
import { digestOf } from '../package/verified-bytes.js';
import { assertVerified, type PackageChecks } from '../signing/verified-package.js';

/** Where a pack goes: the file is named after the package. */
export type PackOutput = Omit<PackTarget, 'fileName'>;

export interface PackRequest {
  source: string;
  outputDirectory: string;
  force: boolean;
  /** Embed every declared dependency under packages/, resolved through these (and any bundle the source has). */
  bundle?: DependencyContext;
}

export interface PackOutcome extends PackResult {
  name: string;
  version: string;
  generated: string[];
  /** What was embedded under packages/, with --bundle. */
  bundled: Array<{ guid: string; version: string; file: string }>;
}

/** What a new bundle replaces: the bundle index and the embedded packages beside it. */
function isBundleEntry(path: string): boolean {
  return path === BUNDLE_INDEX_FILE || (path.startsWith(BUNDLE_DIR) && parsePackageFileName(path.slice(BUNDLE_DIR.length)) !== undefined);
}

/**
 * Packs a package into `<name>-<version>.cap`: manifest.json and routes.json are
 * generated when absent and security.json is written, inside the archive only; stale
 * signing artifacts are dropped because signing is a post-pack step.
 */
export class PackPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly pipeline: PackPipeline,
    /** `checks`: a dependency is embedded only if it passes its own checksums and signature, as the reactor will hold it to them. */
    private readonly bundling?: { dependencies: DependencyLoader; hasher: Hasher; checks: PackageChecks },
  ) {}

  async execute(request: PackRequest): Promise<PackOutcome> {
    const source = await this.opener.open(request.source);
    try {
      return await this.pack(source, { directory: request.outputDirectory, overwrite: request.force }, request.bundle);
    } finally {
      await source.close();
    }
  }

  /** Packs any package source into `<directory>/<name>-<version>.cap`: CLI pack and the reactor's save both come here. */
  async pack(source: PackageSource, target: PackOutput, bundle?: DependencyContext): Promise<PackOutcome> {
    const model = await readPackage(source, { security: false });
    // A package is written only with its identity: 0.1.x metadata is read, never packed as it is.
    identified(model.metadata);
    // Nor with a tombstones file the reactor would refuse to load.
    await readTombstones(source, model);
    const files: PackFile[] = source
      .entries()
      .filter(({ path }) => path !== SECURITY_FILE && !isSigningArtifact(path) && !(bundle && isBundleEntry(path)))
      .map(({ path, size }) => ({ path, size, data: () => source.stream(path) }));
    if (bundle) return this.withBundle(source, model, bundle, (bundled) => this.write(model, [...files, ...bundled.files], target, bundled.list));
    return this.write(model, files, target, []);
  }

  /**
   * One-level policy: the dependencies the package itself declares are embedded, each the
   * `.cap` it resolved to, byte for byte; their own dependencies are not.
   */
  private async withBundle<T>(
    source: PackageSource,
    model: PackageModel,
    context: DependencyContext,
    write: (bundled: { files: PackFile[]; list: PackOutcome['bundled'] }) => Promise<T>,
  ): Promise<T> {
    if (!this.bundling) throw new Error('pack --bundle needs a dependency loader');
    const { dependencies, hasher, checks } = this.bundling;
    const tree = await dependencies.resolve(source, model.metadata, context, { depth: 1 });
    try {
      const index: BundleIndex = {};
      const files: PackFile[] = [];
      for (const dependency of tree.roots) {
        const { pkg } = dependency;
        if (!pkg.archiveBytes) throw new PackageFormatError(`${dependency.location} is not a .cap and cannot be bundled`);
        await assertVerified(pkg, dependency.model.security, checks);
        const file = `${BUNDLE_DIR}${packageFileName(dependency.model.metadata.name, dependency.version)}`;
        const { sha256, size } = await digestOf(pkg.archiveBytes(), hasher);
        index[dependency.guid] = { file, version: dependency.version, sha256 };
        files.push({ path: file, size, data: () => pkg.archiveBytes!() });
      }
      files.push({ path: BUNDLE_INDEX_FILE, data: toJsonBytes(index) });
      return await write({ files, list: Object.entries(index).map(([guid, { version, file }]) => ({ guid, version, file })) });
    } finally {
      await tree.close();
    }
  }

  private async write(model: PackageModel, files: PackFile[], target: PackOutput, bundled: PackOutcome['bundled']): Promise<PackOutcome> {
    const generated: string[] = [];
    const present = new Set(files.map((file) => file.path));
    // Configuration files go in their canonical form, whatever form they were read in; the source is never touched.
    const configs = packedConfigFiles(model, (path) => present.has(path));
    const replaced = new Set(configs.map((config) => config.path));
    files = [...files.filter((file) => !replaced.has(file.path)), ...configs.map(({ path, data }) => ({ path, data }))];
    for (const config of configs) if (config.generated) generated.push(config.path);
    const { name, version } = model.metadata;
    const result = await this.pipeline.write(files, { ...target, fileName: `${name}-${version}.cap` });
    return { ...result, name, version, generated, bundled };
  }
}
