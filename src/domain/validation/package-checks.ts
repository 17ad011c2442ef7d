import { dataSetFiles, type Storage } from '../package/storage.js';
import type { Manifest } from '../package/manifest.js';
import { DATA_API_PREFIX, dependencyReference, isHtml, type Routes } from '../package/routes.js';
import { CONTENT_DIR, unicodeForm } from '../package/package-paths.js';
import { normalizeRequestPath, urlPathOf, type RequestPath } from '../serving/request-path.js';
import { Spellings } from '../package/spellings.js';

/**
 * Whether a resource exists as the reactor would find it: through the package's layers
 * (and its dependencies' exported content, when they were resolved); undefined when that
 * cannot be told here (a dependency that was not resolved); `deleted` when a layer holds
 * it but a tombstone above hides it (a file deleted through the reactor, then saved);
 * `unusable` for a resolved dependency's file a dependent cannot reach, with the reason
 * the reactor gives when it refuses to load (private to the dependency, or not in it).
 */
export type ResourceExists = (resource: string) => boolean | 'deleted' | undefined | { unusable: string };

/** Why a resolved dependency's resource cannot be used, or true when it can. */
export type DependencyResource = (guid: string, contentPath: string) => true | { unusable: string };

/** Problems of a check, the resources it could not check, and those a tombstone deletes. */
export interface ResourceFindings {
  errors: string[];
  unchecked: string[];
  deleted: string[];
}

/** The package file a resource names in another Unicode form, if any (`content/café.html` composed, the file decomposed). */
export type OtherSpelling = (resource: string) => string | undefined;

/** A package's files by their Unicode-normalized names. */
export function otherSpellingIn(files: Iterable<string>): OtherSpelling {
  const spellings = new Spellings(files);
  return (resource) => {
    const file = spellings.of(resource);
    return file === resource ? undefined : file;
  };
}

/**
 * Why a resource is missing. Two spellings of a name look alike on screen (a file a macOS
 * tool named decomposed, NFD, beside a configuration typed composed, NFC): "does not
 * exist" alone names a file the user sees there.
 */
function missing(resource: string, otherSpelling: OtherSpelling | undefined): string {
  const file = otherSpelling?.(resource);
  if (file === undefined) return `resource ${resource} does not exist`;
  return `resource ${resource} does not exist as spelled: the file of that name is spelled ${unicodeForm(file)}, and this ${unicodeForm(resource)}; spell both alike`;
}

/** Every manifest resource must exist in the package. */
export function manifestErrors(manifest: Manifest, exists: ResourceExists, otherSpelling?: OtherSpelling): ResourceFindings {
  const findings: ResourceFindings = { errors: [], unchecked: [], deleted: [] };
  for (const path of Object.keys(manifest)) {
    const found = exists(path);
    if (found === false) findings.errors.push(missing(path, otherSpelling));
    else if (typeof found === 'object') findings.errors.push(`resource ${path} ${found.unusable}`);
    else if (found === undefined) findings.unchecked.push(path);
    else if (found === 'deleted') findings.deleted.push(path);
  }
  return findings;
}

export function routeErrors(routes: Routes, exists: ResourceExists, storage: Storage | undefined, otherSpelling?: OtherSpelling): ResourceFindings {
  const errors: string[] = [];
  const unchecked: string[] = [];
  const deleted: string[] = [];
  for (const route of routes.routes) {
    if (route.resource !== undefined) {
      const found = exists(route.resource);
      if (found === false) errors.push(`route ${route.path}: ${missing(route.resource, otherSpelling)}`);
      else if (typeof found === 'object') errors.push(`route ${route.path}: resource ${route.resource} ${found.unusable}`);
      else if (found === undefined) unchecked.push(route.resource);
      else if (found === 'deleted') deleted.push(route.resource);
    }
    if (route.dataset !== undefined) {
      if (!route.path.startsWith(DATA_API_PREFIX)) errors.push(`route ${route.path}: dataset routes must live under ${DATA_API_PREFIX}`);
      if (!storage || !(route.dataset in storage.dataSets)) errors.push(`route ${route.path}: dataset ${route.dataset} is not declared in storage.json`);
    }
  }
  if (routes.index !== undefined) {
    const found = exists(routes.index);
    if (found === false) errors.push(`index ${routes.index} does not exist`);
    else if (typeof found === 'object') errors.push(`index ${routes.index} ${found.unusable}`);
    else if (!isHtml(routes.index)) errors.push(`index ${routes.index} is not an HTML file`);
  }
  return { errors, unchecked, deleted };
}

/**
 * A resource check over files that may come from layers and dependencies: `content/x`
 * through the layer stack, `<guid>/content/x` through that dependency's exported content,
 * anything else as a package file. `dependencies` undefined: a resource the package does
 * not hold may come from a dependency that was not resolved, and is not judged.
 */
export function resourceExists(
  files: ReadonlySet<string>,
  content: (contentPath: string) => boolean | 'deleted',
  declared: Readonly<Record<string, string>>,
  dependencies: DependencyResource | undefined,
): ResourceExists {
  const hasDependencies = Object.keys(declared).length > 0;
  return (resource) => {
    const reference = resource.startsWith(CONTENT_DIR) ? undefined : dependencyReference(resource, { ...declared });
    if (reference) return dependencies ? dependencies(reference.guid, reference.path.slice(CONTENT_DIR.length)) : undefined;
    // The file itself counts too: a tombstone hides it from serving, not from the package.
    if (files.has(resource)) return true;
    const found = resource.startsWith(CONTENT_DIR) ? content(resource.slice(CONTENT_DIR.length)) : false;
    if (found !== false) return found;
    return hasDependencies && resource.startsWith(CONTENT_DIR) && !dependencies ? undefined : false;
  };
}

/** Routes of kinds other implementations run and this one only lists (answered 501): a warning each, never a failure. */
export function handlerRouteWarnings(routes: Routes): string[] {
  return routes.routes
    .filter((route) => route.handler !== undefined)
    .map((route) => `warning: route ${route.method ?? 'GET'} ${route.path} runs handler ${route.handler}, which this toolkit does not run: it answers 501 HANDLER_NOT_SUPPORTED`);
}

/** Attributes a dataset route carries that only file answers take: said, rather than ignored unsaid. */
export function datasetRouteAttributeWarnings(routes: Routes): string[] {
  const fileOnly = ['responseRewrite', 'responseHeaders', 'headers'] as const;
  return routes.routes.flatMap((route) => {
    const carried = route.dataset === undefined ? [] : fileOnly.filter((name) => route[name] !== undefined);
    return carried.length === 0 ? [] : [`warning: dataset route ${route.path} carries ${carried.join(', ')}, which only file routes apply: its answers are the data API's`];
  });
}

/** Paths two routes serve, a remap's included (`/a` remapped to `/b` beside a route at `/b`): only the first is served. */
export function duplicateRoutePaths(routes: Routes): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const route of routes.routes) {
    const served = route.remap ?? route.path;
    (seen.has(served) ? duplicates : seen).add(served);
  }
  return [...duplicates];
}

/**
 * Routes no request reaches: the reactor reads a request path without dot or empty
 * segments, and refuses one with a backslash or NUL, so `/a/./b`, `//x` or `/a\\b` answer
 * nothing, whatever the client sends. A remapped route is reached at its remap.
 */
export function unreachableRouteWarnings(routes: Routes): string[] {
  const warnings: string[] = [];
  for (const route of routes.routes) {
    const served = route.remap ?? route.path;
    let request: RequestPath;
    try {
      // The spelling a client sends for it: each segment percent-encoded.
      request = normalizeRequestPath(urlPathOf(served));
    } catch {
      request = { ok: false, status: 400, reason: 'a lone surrogate has no UTF-8 spelling' };
    }
    if (!request.ok) warnings.push(`warning: route ${JSON.stringify(served)} can never be requested: a request for it is refused (${request.reason})`);
    else if (request.path !== served) warnings.push(`warning: route ${JSON.stringify(served)} can never be requested: a request for it is read as ${request.path}`);
  }
  return warnings;
}

export function storageFileErrors(storage: Storage, files: ReadonlySet<string>): string[] {
  const errors: string[] = [];
  for (const [id, dataSet] of Object.entries(storage.dataSets)) {
    for (const file of dataSetFiles(dataSet)) if (!files.has(file)) errors.push(`dataset ${id}: ${file} does not exist`);
  }
  return errors;
}
