import { MANIFEST_FILE, ROUTES_FILE, SECURITY_FILE, isSigningArtifact } from '../../domain/package/package-paths.js';
import { routesDocument } from '../../domain/package/routes.js';
import type { PackFile, PackPipeline, PackResult } from '../package/pack-pipeline.js';
import { readPackage, toJsonBytes } from '../package/package-reader.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';

export interface PackRequest {
  source: string;
  outputDirectory: string;
  force: boolean;
}

export interface PackOutcome extends PackResult {
  name: string;
  version: string;
  generated: string[];
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
  ) {}

  async execute(request: PackRequest): Promise<PackOutcome> {
    const source = await this.opener.open(request.source);
    try {
      return await this.pack(source, { directory: request.outputDirectory, overwrite: request.force });
    } finally {
      await source.close();
    }
  }

  /** Packs any package source into `<directory>/<name>-<version>.cap`: CLI pack and the reactor's save both come here. */
  async pack(source: PackageSource, target: { directory: string; overwrite: boolean }): Promise<PackOutcome> {
    const model = await readPackage(source, { security: false });
    const files: PackFile[] = source
      .entries()
      .filter(({ path }) => path !== SECURITY_FILE && !isSigningArtifact(path))
      .map(({ path, size }) => ({ path, size, data: () => source.stream(path) }));
    const generated: string[] = [];
    if (model.manifestGenerated) {
      files.push({ path: MANIFEST_FILE, data: toJsonBytes(model.manifest) });
      generated.push(MANIFEST_FILE);
    }
    if (model.routesGenerated) {
      files.push({ path: ROUTES_FILE, data: toJsonBytes(routesDocument(model.routes)) });
      generated.push(ROUTES_FILE);
    }
    const { name, version } = model.metadata;
    const result = await this.pipeline.write(files, { directory: target.directory, fileName: `${name}-${version}.cap`, overwrite: target.overwrite });
    return { ...result, name, version, generated };
  }
}
