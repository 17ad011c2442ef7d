import { DependencyResourceError } from '../../domain/errors.js';
import { digestLookup } from '../../domain/integrity/security.js';
import { isPrivateIn } from '../../domain/package/manifest.js';
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
    const isPrivate = isPrivateIn(model.manifest);
    const owner: LayerOwner = { source: pkg, manifest: model.manifest, digests: digestLookup(model.security?.checksums ?? {}) };
    const exported = packageLayers(pkg, model, await tombstonesOf(pkg, model))
      .filter((layer) => layer.exported)
      .map((layer) => ({
        ...layer,
        name: `${model.metadata.name}@${dependency.version}:${layer.name}`,
        writable: false,
        files: new Map([...layer.files].filter(([, file]) => !isPrivate(file.key))),
      }));
    for (const layer of exported) owners.set(layer, owner);
    layers.push(...exported);
    if (!byGuid.has(dependency.guid)) byGuid.set(dependency.guid, new LayerStack(exported));
  }
  return { layers, owners, byGuid };
}

/** Every route naming `<guid>/content/<file>` must reach a file that dependency exports: a private or absent one is a load error. */
export function checkDependencyRoutes(routes: RouteTable, dependencies: DependencyLayers, tree: DependencyTree): void {
  for (const [path, target] of routes.declared()) {
    if (target.kind !== 'dependency') continue;
    const problem = dependencyResourceProblem(dependencies, tree, target.guid, target.contentPath);
    if (problem !== undefined) throw new DependencyResourceError(`route ${path}: ${target.guid}/${CONTENT_DIR}${target.contentPath} ${problem}`);
  }
}

/**
 * Why a dependent cannot use `<guid>/content/<contentPath>`, said the same way at load
 * and in validate: the dependency keeps the file private, or does not hold it;
 * undefined when it exports it.
 */
export function dependencyResourceProblem(dependencies: DependencyLayers, tree: DependencyTree, guid: string, contentPath: string): string | undefined {
  if (dependencies.byGuid.get(guid)?.resolve(contentPath)) return undefined;
  const dependency = tree.bottomUp().find((loaded) => loaded.guid === guid);
  if (dependency && holds(dependency, contentPath)) return `is private to ${dependency.model.metadata.name} ${dependency.version}; a dependent can use only its exported resources`;
  return `does not exist${dependency ? ` in ${dependency.model.metadata.name} ${dependency.version} (${dependency.location})` : ''}`;
}

/** Whether any layer of the dependency, exported or not, holds the content path. */
function holds(dependency: LoadedDependency, contentPath: string): boolean {
  return packageLayers(dependency.pkg, dependency.model, new Map()).some((layer) => layer.files.has(contentPath));
}
