import { MANIFEST_FILE, METADATA_FILE, ROUTES_FILE, STORAGE_FILE } from '../../domain/package/package-paths.js';
import { routesDocument } from '../../domain/package/routes.js';
import { storageDocument } from '../../domain/package/storage.js';
import { toJsonBytes, type PackageModel } from './package-reader.js';

/**
 * The configuration files as a package is written (pack, save, the bundle writer): the
 * canonical form of each one the package has, whatever form it was read in (a legacy
 * manifest, `target` routes, a `datasets` array, a dependency list), plus the manifest
 * and routes generated for a package that lacks them.
 */
export function packedConfigFiles(model: PackageModel, has: (path: string) => boolean): Array<{ path: string; data: Uint8Array; generated: boolean }> {
  return [
    { path: METADATA_FILE, data: toJsonBytes(model.metadata), generated: false },
    { path: MANIFEST_FILE, data: toJsonBytes(model.manifest), generated: model.manifestGenerated },
    { path: ROUTES_FILE, data: toJsonBytes(routesDocument(model.routes)), generated: model.routesGenerated },
    ...(model.storage && has(STORAGE_FILE) ? [{ path: STORAGE_FILE, data: toJsonBytes(storageDocument(model.storage)), generated: false }] : []),
  ];
}
