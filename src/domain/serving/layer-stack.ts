/** One file as a layer holds it; `key` identifies the bytes for whoever reads them. */
export interface LayerFile {
  /** Path below the content root, without a leading "/": `docs/a.html`. */
  path: string;
  size: number;
  /** Where the bytes are, as the layer's owner understands it (a package path, an overlay file). */
  key: string;
}

export interface Layer {
  name: string;
  writable: boolean;
  /** Exported layers are visible to dependent packages; private ones are not. */
  exported: boolean;
  /** Its files by path: a map of its own (the overlay's), or a view of a package's entries. */
  files: ReadonlyMap<string, LayerFile>;
  /** Content paths deleted in this layer: they hide every layer below. */
  tombstones: Set<string>;
}

/** A layer whose files change while served: the overlay's. */
export interface WritableLayer extends Layer {
  files: Map<string, LayerFile>;
}

export function emptyLayer(name: string, options: { writable: boolean; exported: boolean }): WritableLayer {
  return { name, ...options, files: new Map(), tombstones: new Set() };
}

/**
 * Ordered layers, resolved from the top down: the first layer holding the path wins,
 * and a tombstone answers "not found" even when a lower layer has the file. A file
 * written into a layer above the tombstone is found again.
 */
export class LayerStack {
  /** Top first. */
  private readonly layers: Layer[];

  constructor(bottomToTop: Layer[]) {
    this.layers = [...bottomToTop].reverse();
  }

  resolve(path: string): { file: LayerFile; layer: Layer } | undefined {
    for (const layer of this.layers) {
      const file = layer.files.get(path);
      if (file) return { file, layer };
      if (layer.tombstones.has(path)) return undefined;
    }
    return undefined;
  }

  /** A visible path below `directory/`, if there is one: the directory is then in use. */
  firstUnder(directory: string): string | undefined {
    const prefix = `${directory}/`;
    for (const layer of this.layers) for (const path of layer.files.keys()) if (path.startsWith(prefix) && this.resolve(path)) return path;
    return undefined;
  }

  /** Every visible content path, each once. */
  visiblePaths(): string[] {
    const seen = new Set<string>();
    const hidden = new Set<string>();
    for (const layer of this.layers) {
      for (const path of layer.files.keys()) if (!hidden.has(path)) seen.add(path);
      for (const path of layer.tombstones) if (!seen.has(path)) hidden.add(path);
    }
    return [...seen];
  }
}
