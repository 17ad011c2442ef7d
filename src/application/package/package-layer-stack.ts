import { ConfigValidationError } from '../../domain/errors.js';
import type { Layer } from '../../domain/serving/layer-stack.js';
import type { PackageSource } from '../ports/package-source.js';
import { packageLayers, tombstoneFiles } from '../serving/served-package.js';
import { readDocument, type PackageModel } from './package-reader.js';

/** The `.pkg-tombstones` of each layer root that has one: root -> the content-relative paths it hides. */
export async function readTombstones(source: PackageSource, model: Pick<PackageModel, 'storage'>): Promise<Map<string, string[]>> {
  const tombstones = new Map<string, string[]>();
  for (const file of tombstoneFiles(model)) {
    if (!source.has(file)) continue;
    const list = await readDocument(source, file);
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) throw new ConfigValidationError(file, ['must be a JSON array of content-relative paths']);
    tombstones.set(file.slice(0, file.lastIndexOf('/') + 1), list as string[]);
  }
  return tombstones;
}

/** A package's own layers, bottom to top, tombstones applied: what the reactor serves and validate checks against. */
export async function readPackageLayers(source: PackageSource, model: Pick<PackageModel, 'storage'>): Promise<Layer[]> {
  return packageLayers(source, model, await readTombstones(source, model));
}
