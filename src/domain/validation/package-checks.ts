import { dataSetFiles, type Storage } from '../package/storage.js';
import type { Manifest } from '../package/manifest.js';
import { DATA_API_PREFIX, dependencyReference, isHtml, type Routes } from '../package/routes.js';

/** Every manifest resource must exist in the package. */
export function manifestErrors(manifest: Manifest, files: ReadonlySet<string>): string[] {
  return Object.keys(manifest)
    .filter((path) => !files.has(path))
    .map((path) => `resource ${path} does not exist`);
}

export function routeErrors(routes: Routes, files: ReadonlySet<string>, storage: Storage | undefined, dependencies: Record<string, string>): string[] {
  const errors: string[] = [];
  for (const route of routes.routes) {
    if (route.resource !== undefined) {
      if (!files.has(route.resource) && !dependencyReference(route.resource, dependencies)) errors.push(`route ${route.path}: resource ${route.resource} does not exist`);
    }
    if (route.dataset !== undefined) {
      if (!route.path.startsWith(DATA_API_PREFIX)) errors.push(`route ${route.path}: dataset routes must live under ${DATA_API_PREFIX}`);
      if (!storage || !(route.dataset in storage.dataSets)) errors.push(`route ${route.path}: dataset ${route.dataset} is not declared in storage.json`);
    }
  }
  if (routes.index !== undefined) {
    if (!files.has(routes.index)) errors.push(`index ${routes.index} does not exist`);
    else if (!isHtml(routes.index)) errors.push(`index ${routes.index} is not an HTML file`);
  }
  return errors;
}

/** Routes of kinds other implementations run and this one only lists (answered 501): a warning each, never a failure. */
export function handlerRouteWarnings(routes: Routes): string[] {
  return routes.routes
    .filter((route) => route.handler !== undefined)
    .map((route) => `warning: route ${route.method ?? 'GET'} ${route.path} runs handler ${route.handler}, which this toolkit does not run: it answers 501 HANDLER_NOT_SUPPORTED`);
}

export function duplicateRoutePaths(routes: Routes): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const route of routes.routes) (seen.has(route.path) ? duplicates : seen).add(route.path);
  return [...duplicates];
}

export function storageFileErrors(storage: Storage, files: ReadonlySet<string>): string[] {
  const errors: string[] = [];
  for (const [id, dataSet] of Object.entries(storage.dataSets)) {
    for (const file of dataSetFiles(dataSet)) if (!files.has(file)) errors.push(`dataset ${id}: ${file} does not exist`);
  }
  return errors;
}
