import { ConfigValidationError } from '../../domain/errors.js';
import { parseDocument } from '../../domain/package/documents.js';
import { assertIntact } from '../integrity/digest-entries.js';
import { readPackage, readText } from '../package/package-reader.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';
import type { PackageVerifier } from '../ports/package-verifier.js';
import type { OverlayStore } from '../ports/overlay-store.js';
import { emptyLayer } from '../../domain/serving/layer-stack.js';
import type { ByteBudget } from './byte-budget.js';
import { ServedPackage, packageLayers, tombstoneFiles, type ServeOptions } from './served-package.js';

export interface LoadOptions extends ServeOptions {
  /** The reactor's workdir: a writable package's overlay lives there. Without one, nothing is writable. */
  workdir?: string;
}

/**
 * Loads a package for serving: reads its configuration, verifies it against
 * security.json before anything is served (IntegrityError naming the files), and
 * builds its layers. Once verified, the checksums are the files' ETags.
 */
export class LoadPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly hasher: Hasher,
    private readonly verifier: PackageVerifier,
    private readonly budget: ByteBudget,
    private readonly overlays: OverlayStore,
  ) {}

  async execute(location: string, options: LoadOptions): Promise<ServedPackage> {
    const source = await this.opener.open(location);
    try {
      return await this.load(source, options);
    } catch (error) {
      await source.close();
      throw error;
    }
  }

  async load(source: PackageSource, options: LoadOptions): Promise<ServedPackage> {
    const model = await readPackage(source, { generate: 'serving' });
    if (model.security) assertIntact(source.location, await this.verifier.verify(source, model.security));
    const tombstones = new Map<string, string[]>();
    for (const file of tombstoneFiles(model)) {
      if (!source.has(file)) continue;
      const list = parseDocument(await readText(source, file), file);
      if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) throw new ConfigValidationError(file, ['must be a JSON array of content-relative paths']);
      tombstones.set(file.slice(0, file.lastIndexOf('/') + 1), list as string[]);
    }
    const digests = new Map(Object.entries(model.security?.checksums ?? {}));
    const overlay = options.workdir !== undefined && model.metadata.readOnly !== true ? await this.overlayOf(options.workdir, model.metadata.name) : undefined;
    return new ServedPackage(source, model, this.hasher, this.budget, options, packageLayers(source, model, tombstones), digests, overlay);
  }

  /** A writable package's overlay: the files and tombstones earlier runs wrote into this workdir. */
  private async overlayOf(workdir: string, name: string): Promise<ServedPackage['overlay']> {
    const files = this.overlays.open(workdir, name);
    const layer = emptyLayer('overlay', { writable: true, exported: true });
    for (const file of await files.contentFiles()) layer.files.set(file.path, { ...file, key: file.path });
    for (const path of await files.tombstones()) layer.tombstones.add(path);
    return { layer, files };
  }
}
