import { serializeDocument } from '../../domain/package/documents.js';
import { detectType } from '../../domain/package/media-types.js';
import { CONTENT_DIR, MANIFEST_FILE, METADATA_FILE, ROUTES_FILE, SECURITY_FILE, TOMBSTONES_FILE, isSigningArtifact, sortPaths, utf8Length } from '../../domain/package/package-paths.js';
import { DatasetFullError, OverlayError, UsageError, WriteFailedError } from '../../domain/errors.js';
import { routesDocument } from '../../domain/package/routes.js';
import { incrementPatch } from '../../domain/package/version-range.js';
import type { PackageDatasets } from '../data/package-datasets.js';
import { FileSetSource, type FileSetEntry } from '../package/file-set-source.js';
import { readTombstones } from '../package/package-layer-stack.js';
import { MAX_DATA_DOCUMENT_BYTES, toJsonBytes } from '../package/package-reader.js';
import type { ContentWrites } from '../serving/content-writes.js';
import { layerRoots, type ServedPackage } from '../serving/served-package.js';
import type { PackPackage } from './pack-package.js';

export interface SavedPackage {
  path: string;
  sha256: string;
  name: string;
  version: string;
}

export interface SaveRequest {
  pkg: ServedPackage;
  datasets: PackageDatasets;
  content: ContentWrites;
  /** The saved package goes to `<workdir>/saved/`. */
  workdir: string;
  /**
   * Given when the package's name is mounted more than once: each mount has its own overlay,
   * so its saved packages go to `saved/<mountKey>/`, and saving one never replaces another's.
   */
  mountKey?: string;
}

/**
 * `POST /package/<name>/save`: folds the base package and its overlay (written files,
 * tombstones, datasets) into `<workdir>/saved/<name>-<patch+1>.cap`, through the same
 * pack as the CLI. Overlay files land in the package's topmost layer, and its
 * tombstones in that layer's `.pkg-tombstones`, so the saved package serves exactly
 * what the reactor served. A second save of the same base replaces the first.
 */
export class SavePackage {
  constructor(private readonly packer: PackPackage) {}

  execute(request: SaveRequest): Promise<SavedPackage> {
    // Between content writes, so files and tombstones hold still; datasets are read at once.
    return request.content.quiet(async () => {
      const { pkg, datasets, workdir, mountKey } = request;
      const { source, model } = pkg;
      const version = incrementPatch(model.metadata.version);
      const files = new Map<string, FileSetEntry>();
      for (const { path, size } of source.entries()) {
        if (path !== SECURITY_FILE && !isSigningArtifact(path)) files.set(path, { size, stream: () => source.stream(path) });
      }
      files.set(METADATA_FILE, FileSetSource.bytes(toJsonBytes({ ...model.metadata, version })));
      for (const dataset of datasets.all()) {
        const definition = model.storage?.dataSets[dataset.id];
        if (definition?.kind !== 'schema' || !dataset.isCollection) continue;
        files.set(definition.source, FileSetSource.bytes(datasetFile(dataset.id, dataset.itemsToSave(), definition.source)));
      }
      // Read again and checked again: a directory source's tombstone files may have been edited since load, and the saved package must load.
      const tombstones = await readTombstones(source, model);
      if (pkg.overlay) foldOverlay(pkg, files, tombstones);
      const directory = mountKey === undefined ? `${workdir}/saved` : `${workdir}/saved/${mountKey}`;
      const saved = await this.packer
        .pack(new FileSetSource(files, `${source.location} with its overlay`), {
          directory,
          overwrite: true,
          // The plaintext of an encrypted package, kept as the workdir keeps what it decrypts: from other users.
          ...(pkg.encrypted ? { ownerOnly: true } : {}),
        })
        .catch((error: unknown) => {
          // The workdir is the reactor's, not the client's: a folder that cannot be written there is the reactor's trouble (503).
          if (error instanceof UsageError || error instanceof WriteFailedError) throw new OverlayError(`the saved package cannot be written into the workdir: ${error.message}`, { cause: error });
          throw error;
        });
      return { path: saved.path, sha256: saved.sha256, name: saved.name, version: saved.version };
    });
  }
}

/** `tombstones`: the package's own, by layer root (readTombstones). */
function foldOverlay(pkg: ServedPackage, files: Map<string, FileSetEntry>, tombstones: ReadonlyMap<string, string[]>): void {
  const { model } = pkg;
  const overlay = pkg.overlay!;
  const roots = layerRoots(model);
  const top = roots[roots.length - 1]!.root;
  const removed: string[] = [];
  for (const path of overlay.layer.tombstones) if (files.delete(top + path)) removed.push(top + path);
  const added: string[] = [];
  for (const [path, file] of overlay.layer.files) {
    if (!files.has(top + path)) added.push(top + path);
    files.set(top + path, { size: file.size, stream: () => overlay.files.streamContent(path) });
  }
  if (overlay.layer.tombstones.size > 0) {
    const tombstonesFile = top + TOMBSTONES_FILE;
    const earlier = tombstones.get(top) ?? [];
    const merged = sortPaths(new Set([...earlier, ...overlay.layer.tombstones].filter((path) => !overlay.layer.files.has(path))));
    files.set(tombstonesFile, FileSetSource.bytes(toJsonBytes(merged)));
  }
  // routes.json, written by hand or by pack, loses the routes to removed files, as validate asks.
  if (!model.routesGenerated && removed.length > 0) {
    const gone = new Set(removed);
    const routes = model.routes.routes.filter((route) => route.resource === undefined || !gone.has(route.resource));
    const index = model.routes.index !== undefined && gone.has(model.routes.index) ? undefined : model.routes.index;
    if (routes.length < model.routes.routes.length || index !== model.routes.index) files.set(ROUTES_FILE, FileSetSource.bytes(toJsonBytes(routesDocument({ routes, ...(index !== undefined ? { index } : {}) }))));
  }
  // A hand-written manifest lists content/ files: it gains the new ones and loses the removed ones.
  if (!model.manifestGenerated && top === CONTENT_DIR) {
    const manifest = { ...model.manifest };
    for (const path of removed) delete manifest[path];
    for (const path of added) manifest[path] = { type: detectType(path), visibility: 'exported' };
    files.set(MANIFEST_FILE, FileSetSource.bytes(toJsonBytes(Object.fromEntries(sortPaths(Object.keys(manifest)).map((path) => [path, manifest[path]])))));
  }
}

/**
 * A dataset's file as the saved package holds it: in its format, indented, as pack writes
 * it; a JSON file indented would not fit in what a dataset's file may hold (and
 * indentation can grow deep items many times over) is written compact, as it is served.
 * One that fits neither way is refused: the saved package would not load.
 */
function datasetFile(id: string, items: unknown[], file: string): Uint8Array {
  const limit = MAX_DATA_DOCUMENT_BYTES;
  let text: string | undefined;
  if (/\.ya?ml$/i.test(file)) text = fitting(() => serializeDocument(items, file), limit);
  else text = indentedList(items, limit) ?? fitting(() => JSON.stringify(items), limit);
  if (text === undefined) throw new DatasetFullError(`dataset ${id} takes more than the ${limit / 1024 / 1024} MiB its file ${file} may hold, so the saved package would not load: delete or shrink items, then save`);
  return new TextEncoder().encode(text);
}

/** `JSON.stringify(items, null, 2)` and a newline, built item by item and given up past `limit` bytes. */
function indentedList(items: readonly unknown[], limit: number): string | undefined {
  if (items.length === 0) return '[]\n';
  const parts: string[] = [];
  let bytes = 4;
  for (const item of items) {
    // Strings in JSON hold no raw newline: each line break is the layout's, indented one level more inside the list.
    const part = JSON.stringify(item, null, 2).replaceAll('\n', '\n  ');
    bytes += utf8Length(part) + 4;
    if (bytes > limit) return undefined;
    parts.push(part);
  }
  return `[\n  ${parts.join(',\n  ')}\n]\n`;
}

/** What `serialize` writes, when it takes at most `limit` bytes: past the engine's longest string it throws RangeError. */
function fitting(serialize: () => string, limit: number): string | undefined {
  try {
    const text = serialize();
    return utf8Length(text) <= limit ? text : undefined;
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
