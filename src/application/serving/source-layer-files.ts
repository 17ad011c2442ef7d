import { TOMBSTONES_FILE } from '../../domain/package/package-paths.js';
import type { LayerFile } from '../../domain/serving/layer-stack.js';
import type { PackageSource } from '../ports/package-source.js';

/**
 * The files of one of a package's own layers (those below `root`), looked up in the
 * source's own index of entries rather than copied into a map at load: for a
 * 10,000-file package the copy was 7-8 ms of every start, before the first answer. A
 * file found is kept, so it is the same object at every lookup (answers are cached by
 * it); the whole list is made the first time the layer is listed.
 */
export class SourceLayerFiles implements ReadonlyMap<string, LayerFile> {
  private found = new Map<string, LayerFile>();
  private listed = false;

  constructor(
    private readonly source: PackageSource,
    private readonly root: string,
  ) {}

  get(path: string): LayerFile | undefined {
    const known = this.found.get(path);
    if (known !== undefined || this.listed || path === TOMBSTONES_FILE) return known;
    const key = this.root + path;
    const size = this.source.sizeOf(key);
    if (size === undefined) return undefined;
    const file = { path, size, key };
    this.found.set(path, file);
    return file;
  }

  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  get size(): number {
    return this.all().size;
  }

  keys(): MapIterator<string> {
    return this.all().keys();
  }

  values(): MapIterator<LayerFile> {
    return this.all().values();
  }

  entries(): MapIterator<[string, LayerFile]> {
    return this.all().entries();
  }

  [Symbol.iterator](): MapIterator<[string, LayerFile]> {
    return this.all()[Symbol.iterator]();
  }

  forEach(visit: (file: LayerFile, path: string, map: ReadonlyMap<string, LayerFile>) => void): void {
    for (const [path, file] of this.all()) visit(file, path, this);
  }

  /** Every file of the layer, in the source's order, files found before included as they were. */
  private all(): Map<string, LayerFile> {
    if (this.listed) return this.found;
    const all = new Map<string, LayerFile>();
    for (const entry of this.source.entries()) {
      if (!entry.path.startsWith(this.root)) continue;
      const path = entry.path.slice(this.root.length);
      if (path !== TOMBSTONES_FILE) all.set(path, this.found.get(path) ?? { path, size: entry.size, key: entry.path });
    }
    this.found = all;
    this.listed = true;
    return all;
  }
}
