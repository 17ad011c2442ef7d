import { MANIFEST_FILE, ROUTES_FILE } from '../../domain/package/package-paths.js';
import { routesDocument } from '../../domain/package/routes.js';
import { toJsonBytes, type PackageModel } from './package-reader.js';

/** The configuration files pack writes for a package that lacks them, with the bytes it writes. */
export function generatedFiles(model: PackageModel): Array<{ path: string; data: Uint8Array }> {
  return [
    ...(model.manifestGenerated ? [{ path: MANIFEST_FILE, data: toJsonBytes(model.manifest) }] : []),
    ...(model.routesGenerated ? [{ path: ROUTES_FILE, data: toJsonBytes(routesDocument(model.routes)) }] : []),
  ];
}
