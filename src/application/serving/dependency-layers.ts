import { DependencyResourceError } from '../../domain/errors.js';
import { digestLookup } from '../../domain/integrity/security.js';
import { CONTENT_DIR } from '../../domain/package/package-paths.js';
import { LayerStack, type Layer } from '../../domain/serving/layer-stack.js';
import type { RouteTable } from '../../domain/serving/route-table.js';
import type { DependencyTree, LoadedDependency } from '../package/dependency-loader.js';
import type { PackageSource } from '../ports/package-source.js';
import type { PackageModel } from '../package/package-reader.js';
import { packageLayers, type DependencyLayers, type LayerOwner } from './served-package.js';

/**
 * The layers a package gets from its dependencies, bottom up: each dependency's own
 * dependencies below it, earlier declarations below later ones. Only exported layers
 * come along, without the files the dependency's manifest marks private, and none of
 * them takes writes.
 */
export async function dependencyLayers(tree: DependencyTree, tombstonesOf: (source: PackageSource, model: Pick<PackageModel, 'storage'>) => Promise<Map<string, string[]>>): Promise<DependencyLayers> {
  const layers: Layer[] = [];
  const owners = new Map<Layer, LayerOwner>();
  const byGuid = new Map<string, LayerStack>();
  for (const dependency of tree.bottomUp()) {
    const { pkg, model } = dependency;
    const owner: LayerOwner = { source: pkg, manifest: model.manifest, digests: digestLookup(model.security?.checksums ?? {}) };
    const exported = packageLayers(pkg, model, await tombstonesOf(pkg, model))
      .filter((layer) => layer.exported)
      .map((layer) => ({
        ...layer,
        name: `${model.metadata.name}@${dependency.version}:${layer.name}`,
        writable: false,
        files: new Map([...layer.files].filter(([, file]) => model.manifest[file.key]?.visibility !== 'private')),
      }));
    for (const layer of exported) owners.set(layer, owner);
    layers.push(...exported);
    if (!byGuid.has(dependency.guid)) byGuid.set(dependency.guid, new LayerStack(exported));
  }
  return { layers, owners, byGuid };
}

/** Every route naming `<guid>/content/<file>` must reach a file that dependency exports: a private or absent one is a load error. */
export function checkDependencyRoutes(routes: RouteTable, dependencies: DependencyLayers, tree: DependencyTree): void {
  const resolved = new Map(tree.bottomUp().map((dependency) => [dependency.guid, dependency]));
  for (const [path, target] of routes.declared()) {
    if (target.kind !== 'dependency' || dependencies.byGuid.get(target.guid)?.resolve(target.contentPath)) continue;
    const resource = `${target.guid}/${CONTENT_DIR}${target.contentPath}`;
    const dependency = resolved.get(target.guid);
    if (dependency && holds(dependency, target.contentPath))
      throw new DependencyResourceError(`route ${path}: ${resource} is private to ${dependency.model.metadata.name} ${dependency.version}; a dependent can use only its exported resources`);
    throw new DependencyResourceError(`route ${path}: ${resource} does not exist${dependency ? ` in ${dependency.model.metadata.name} ${dependency.version} (${dependency.location})` : ''}`);
  }
}

/** Whether any layer of the dependency, exported or not, holds the content path. */
function holds(dependency: LoadedDependency, contentPath: string): boolean {
  return packageLayers(dependency.pkg, dependency.model, new Map()).some((layer) => layer.files.has(contentPath));
}
