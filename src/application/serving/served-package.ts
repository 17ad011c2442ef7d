import { CONTENT_DIR, TOMBSTONES_FILE, isAscii } from '../../domain/package/package-paths.js';
import type { PackageModel } from '../package/package-reader.js';
import { LayerStack, type Layer, type LayerFile, type WritableLayer } from '../../domain/serving/layer-stack.js';
import { RouteTable, type RouteTarget } from '../../domain/serving/route-table.js';
import { Spellings } from '../../domain/package/spellings.js';
import { routeHeader, type Route } from '../../domain/package/routes.js';
import type { Hasher } from '../ports/hasher.js';
import type { DeflatedEntry, PackageSource } from '../ports/package-source.js';
import type { OverlayEntry, PackageOverlay } from '../ports/overlay-store.js';
import { compactBytes } from '../shared/bytes.js';
import type { ByteBudget } from './byte-budget.js';
import { contentTypeHeader, typeOf } from './content-types.js';
import { GzipRepresentation, worthGzip } from './gzip-representation.js';
import { MIN_ENCODED_SIZE, type Encodings } from './encoded-representation.js';
import { BackgroundBrotli, type BrotliCandidate } from './background-brotli.js';
import { SourceLayerFiles } from './source-layer-files.js';
import type { CompressedCopies } from './compressed-copies.js';
import { CompressedCopy } from './compressed-copy.js';
import { GZIP_FRAMING } from '../../domain/serving/gzip-member.js';
import { detectType, isIncompressible, isTextType, typeByExtension } from '../../domain/package/media-types.js';
import type { Manifest } from '../../domain/package/manifest.js';
import type { DigestLookup } from '../../domain/integrity/security.js';
import { SourceChangedError, SourceNotFoundError, type PackageOutOfServiceError } from '../../domain/errors.js';
import type { VerifyOnReadSource } from '../integrity/verify-on-read-source.js';

/** How long after load the background brotli pass starts: the first answers go out before it looks at every entry. */
const BACKGROUND_START_MS = 100;

/** Files up to this size are held in memory (within the reactor's byte budget). */
export const MEMORY_FILE_LIMIT = 1024 * 1024;

export interface ServeOptions {
  cacheControl: string;
  /** HTML pages of a directory source carry the live-reload script (`--watch --live-reload`). */
  liveReload?: boolean;
}

/** The path of the live-reload event stream, and the script HTML pages get with `--live-reload`. */
export const LIVE_RELOAD_PATH = '/__pkg/live-reload';
const LIVE_RELOAD_SCRIPT = `<script>new EventSource('${LIVE_RELOAD_PATH}').onmessage = () => location.reload();</script>\n`;

/**
 * A file as a path serves it, worked out once per path and reused until the content
 * changes: its type, digest and size, the bytes when held in memory, and the route that
 * serves it (whose header attributes the HTTP adapter applies).
 */
export interface StaticFile {
  /** The media type, with `charset=utf-8` for text. */
  contentType: string;
  /** The quoted SHA-256 of the bytes served: the strong ETag. */
  etag: string;
  size: number;
  /** `Cache-Control` unless the route's `headers` replace it. */
  cacheControl: string;
  route?: Route;
  /** The whole body when it is in memory. */
  body?: Uint8Array;
  /** Streams bytes [start, end] inclusive, for bodies not in memory. */
  stream(start: number, end: number): AsyncIterable<Uint8Array>;
  /** The same bytes in other content codings, for files worth compressing: the answer varies with Accept-Encoding. */
  encodings?: Encodings;
  /**
   * False for a file any part of which costs what the whole does (an entry a `.cap`
   * stores deflated, too large to hold in memory, inflates from its start): a range of it
   * is answered with the whole file, as nginx does with what it gunzips, so one small
   * request cannot cost a large inflate. False too for a route that sends
   * `Accept-Ranges: none`: its answers say so, and keep to it.
   */
  ranges?: false;
}

/** The tags of a file's current representations: its own, and that of each content coding it may be sent in. */
export function representationTags(file: StaticFile): string[] {
  const tags = [file.etag];
  for (const form of Object.values(file.encodings ?? {})) if (form && !form.refused) tags.push(form.etag);
  return tags;
}

export type StaticLookup = { kind: 'hit'; file: StaticFile } | { kind: 'dataset'; dataset: string; route: Route } | { kind: 'handler'; route: Route } | { kind: 'miss' };

/** A package whose files some layers hold: where to read them, their manifest types and verified digests. */
export interface LayerOwner {
  source: PackageSource;
  manifest: Manifest;
  digests: DigestLookup;
}

/** The exported content of resolved dependencies: read-only layers below all of the package's own. */
export interface DependencyLayers {
  /** Bottom to top. */
  layers: Layer[];
  owners: ReadonlyMap<Layer, LayerOwner>;
  /** Each dependency's exported content alone, for resources named `<guid>/content/<file>`. */
  byGuid: ReadonlyMap<string, LayerStack>;
}

export const NO_DEPENDENCIES: DependencyLayers = { layers: [], owners: new Map(), byGuid: new Map() };

interface FileState {
  type: string;
  sha256?: string;
  bytes?: Uint8Array;
  /** The bytes measured when the state was made: what Content-Length says and the body holds. */
  size: number;
  /** The source's version token of the file, for files that may change while served. */
  version?: string;
  /** Made on the first answer that serves the file's own bytes; null when it has none. */
  encodings?: Encodings | null;
}

/**
 * One package as the reactor serves it: its layer stack, its route table, and the
 * response for each path, computed on first use and kept. The hot path is two map
 * lookups; nothing on it parses JSON or touches the disk once a file is in memory.
 */
export class ServedPackage {
  readonly layers: LayerStack;
  readonly routes: RouteTable;
  /** One load per file, shared by concurrent first requests; a rewritten overlay file is a new object. */
  private readonly files = new Map<LayerFile, Promise<FileState>>();
  private readonly outsideContent = new Map<string, LayerFile>();
  /** Hits and dataset routes only: bounded by the package, unlike the paths clients may ask for. */
  private readonly responses = new Map<string, StaticLookup>();
  /** Made at the first request that spells a name another way; remade after an overlay change. */
  private spellings: Spellings | undefined;
  /** Whether it was served out of an encrypted package. */
  encrypted = false;
  /** Brotli copies of an archive's text entries, made after load (`compressInBackground`). */
  private background: BackgroundBrotli | undefined;
  /** The package's own layers (not its dependencies', not the overlay): what the background pass compresses. */
  private readonly own: readonly Layer[];
  /** With `--verify lazy`: the package's files checked on first read, and whether it is still in service. */
  verification: VerifyOnReadSource | undefined;

  constructor(
    readonly source: PackageSource,
    readonly model: PackageModel,
    private readonly hasher: Hasher,
    private readonly budget: ByteBudget,
    private readonly options: ServeOptions,
    layers: Layer[],
    /** SHA-256 per package path, when known at load (from a verified security.json). */
    private readonly digests: DigestLookup,
    /** The reactor's overlay: the topmost layer, whose files live in the workdir. */
    readonly overlay?: { layer: WritableLayer; files: PackageOverlay },
    readonly dependencies: DependencyLayers = NO_DEPENDENCIES,
    /** Compressed copies of directory and overlay files, data answers and archive entries; without it, those go identity. */
    readonly copies?: CompressedCopies,
  ) {
    this.layers = new LayerStack([...dependencies.layers, ...layers, ...(overlay ? [overlay.layer] : [])]);
    this.routes = new RouteTable(model.routes, model.metadata.dependencies);
    this.own = layers;
  }

  /**
   * Starts making brotli copies of an archive's text entries, off the request path (see
   * BackgroundBrotli), a moment after load: looking at every entry is work no first request
   * should wait for. Directories change while served, so their files are compressed on
   * first demand instead. Returns when the pass is done, for those who wait for it.
   */
  compressInBackground(): Promise<void> {
    const { source, copies } = this;
    if (!copies || !source.deflated || source.current || this.background) return this.background?.done ?? Promise.resolve();
    const candidates = () => {
      const listed = new Map<string, BrotliCandidate>();
      for (const layer of this.own) {
        for (const { key } of layer.files.values()) {
          const entry = source.deflated!(key);
          if (!entry || !worthGzip(entry, MEMORY_FILE_LIMIT) || !isTextType(typeOf(this.model.manifest[key]?.type, key))) continue;
          const sha256 = this.digests.get(key);
          listed.set(key, { key, size: entry.size, gzipSize: entry.compressedSize + GZIP_FRAMING, ...(sha256 ? { sha256 } : {}) });
        }
      }
      return [...listed.values()];
    };
    this.background = new BackgroundBrotli(source, candidates, copies, this.hasher, { delayMs: BACKGROUND_START_MS });
    return this.background.done;
  }

  /** Stops serving this version: pending background work is cancelled, every byte it held goes back to the budget, and the source is closed. */
  async close(): Promise<void> {
    this.background?.cancel();
    for (const file of [...this.files.keys()]) this.forget(file);
    this.responses.clear();
    await this.source.close();
  }

  get name(): string {
    return this.model.metadata.name;
  }

  /** Set once a lazily verified package failed a check: every request to it is refused with this. */
  get outOfService(): PackageOutOfServiceError | undefined {
    return this.verification?.guard.outOfService;
  }

  /** The cached answer for a path, when one was computed already: the synchronous hot path. A source that may change is checked on every request instead. */
  cached(path: string): StaticLookup | undefined {
    return this.source.current ? undefined : this.responses.get(path);
  }

  async lookup(path: string): Promise<StaticLookup> {
    const known = this.responses.get(path);
    if (known && (known.kind !== 'hit' || !this.source.current)) return known;
    const target: RouteTarget | undefined = this.routes.lookup(path);
    let result: StaticLookup = { kind: 'miss' };
    if (target?.kind === 'dataset') result = { kind: 'dataset', dataset: target.dataset, route: target.route };
    else if (target?.kind === 'handler') result = { kind: 'handler', route: target.route };
    else if (target?.kind === 'content') result = await this.hit(this.layers.resolve(target.contentPath), target.route);
    else if (target?.kind === 'file') result = await this.hit(this.packageFile(target.packagePath), target.route);
    else if (target?.kind === 'dependency') result = await this.hit(this.dependencies.byGuid.get(target.guid)?.resolve(target.contentPath), target.route);
    else if (target === undefined) result = await this.hit(this.layers.resolve(RouteTable.mirrored(path)), undefined);
    if (result.kind !== 'miss') this.responses.set(path, result);
    return result;
  }

  /**
   * Whether a path without its trailing slash names a folder with an index.html and no
   * file: `/docs` when only `content/docs/index.html` is there. Its answer is a redirect to
   * the slashed path, whose relative links then resolve below the folder.
   */
  isFolderWithIndex(path: string): boolean {
    return !path.endsWith('/') && !this.holdsFile(path) && this.holdsFile(`${path}/`);
  }

  /** Whether a content file answers the path where no route names it. */
  holdsFile(path: string): boolean {
    return this.layers.resolve(RouteTable.mirrored(path)) !== undefined;
  }

  /**
   * A read's path as the package spells it: the path itself when it names something,
   * else the one route, file or folder that is the same once Unicode-normalized (a link
   * typed in NFC to a file named in NFD on macOS), so that file is served, under its own
   * route's access rule, rather than a 404.
   */
  spelled(path: string): string {
    if (isAscii(path) || this.responses.has(path) || this.routes.lookup(path) || this.layers.resolve(RouteTable.mirrored(path)) || this.isFolderWithIndex(path)) return path;
    this.spellings ??= new Spellings([...[...this.routes.declared()].map(([declared]) => declared), ...this.layers.visiblePaths().map((file) => `/${file}`)]);
    return this.spellings.of(path) ?? path;
  }

  /** What the overlay holds at a content path as this reactor sees it: what a conditional write was decided against. */
  async overlayEntry(path: string): Promise<OverlayEntry> {
    const { layer } = this.overlay!;
    if (layer.tombstones.has(path)) return { kind: 'tombstone' };
    const file = layer.files.get(path);
    if (!file) return { kind: 'none' };
    return { kind: 'file', sha256: (await this.load(file, this.readerOf(layer))).sha256! };
  }

  /** A file written to the overlay (or replaced there): served from the next request on. */
  overlayWritten(path: string, size: number): void {
    const layer = this.overlay!.layer;
    this.forget(layer.files.get(path));
    layer.files.set(path, { path, size, key: path });
    layer.tombstones.delete(path);
    this.responses.clear();
    this.spellings = undefined;
  }

  /** A path tombstoned in the overlay: 404 from the next request on, whatever lies below. */
  overlayDeleted(path: string): void {
    const layer = this.overlay!.layer;
    this.forget(layer.files.get(path));
    layer.files.delete(path);
    layer.tombstones.add(path);
    this.responses.clear();
    this.spellings = undefined;
  }

  private forget(file: LayerFile | undefined): void {
    const state = file && this.files.get(file);
    if (!state) return;
    this.files.delete(file);
    state
      .then((loaded) => {
        if (loaded.bytes) this.budget.give(loaded.bytes.length);
        // The compressed copies go with the bytes they were made of.
        for (const encoded of Object.values(loaded.encodings ?? {})) encoded.release();
        loaded.encodings = null;
      })
      .catch(() => undefined);
  }

  private packageFile(path: string): { file: LayerFile } | undefined {
    let file = this.outsideContent.get(path);
    if (!file) {
      const entry = this.source.entries().find((e) => e.path === path);
      if (!entry) return undefined;
      this.outsideContent.set(path, (file = { path, size: entry.size, key: path }));
    }
    return { file };
  }

  private async hit(found: { file: LayerFile; layer?: Layer } | undefined, route: Route | undefined): Promise<StaticLookup> {
    if (!found) return { kind: 'miss' };
    const { file } = found;
    const reader = this.readerOf(found.layer);
    let state = await this.load(file, reader).catch(missing);
    if (state && reader.current) {
      // A file edited since it was measured is measured again: size, digest and bytes always agree.
      const now = await reader.current(file.key);
      if (!now) return { kind: 'miss' };
      if (now.version !== state.version) {
        this.forget(file);
        state = await this.load(file, reader).catch(missing);
      }
    }
    if (!state) return { kind: 'miss' };
    const rewrite = route?.responseRewrite?.body;
    if (rewrite !== undefined) {
      const body = new TextEncoder().encode(rewrite);
      return this.served(state.type, this.hasher.sha256(body), body, body.length, file, reader, route);
    }
    if (this.options.liveReload && this.source.current && state.bytes && state.type.startsWith('text/html')) {
      const body = withLiveReload(state.bytes);
      return this.served(state.type, this.hasher.sha256(body), body, body.length, file, reader, route);
    }
    return this.served(state.type, state.sha256!, state.bytes, state.size, file, reader, route, this.encodingsOf(state, file, reader));
  }

  /** One set per file version, shared by the paths that serve it, so its copies are made and held once. */
  private encodingsOf(state: FileState, file: LayerFile, reader: FileReader): Encodings | undefined {
    if (state.encodings === undefined) state.encodings = this.encodingsFor(state, file, reader) ?? null;
    return state.encodings ?? undefined;
  }

  /**
   * Archive entries stored deflated go gzip from their own deflate bytes, and brotli once
   * the background pass has their copy; an archive's stored entries stay identity (the
   * packer found them incompressible). Files that are not in an archive (a directory, the
   * overlay) are compressed on first demand when held in memory, big enough to gain and
   * not compressed media.
   */
  private encodingsFor(state: FileState, file: LayerFile, reader: FileReader): Encodings | undefined {
    const sha256 = state.sha256!;
    if (reader.deflated) {
      const gzip = GzipRepresentation.of(reader.deflated(file.key), sha256, this.hasher, this.budget, MEMORY_FILE_LIMIT);
      const br = gzip && reader.brotli?.(file.key, sha256);
      return gzip && { gzip, ...(br ? { br } : {}) };
    }
    const { bytes } = state;
    if (!this.copies || !bytes || bytes.length < MIN_ENCODED_SIZE || isIncompressible(file.key, bytes.subarray(0, 4096))) return undefined;
    return { br: new CompressedCopy('br', sha256, bytes, this.copies), gzip: new CompressedCopy('gzip', sha256, bytes, this.copies) };
  }

  private readerOf(layer: Layer | undefined): FileReader {
    if (this.overlay && layer === this.overlay.layer) {
      const { files } = this.overlay;
      return { read: (key) => files.readContent(key), stream: (key) => files.streamContent(key) };
    }
    const dependency = layer && this.dependencies.owners.get(layer);
    const owner = dependency ?? { source: this.source, manifest: this.model.manifest, digests: this.digests };
    const { source } = owner;
    // Dependencies were verified whole at load; the package's own files may still be unchecked.
    const verification = dependency ? undefined : this.verification;
    return {
      ...(verification ? { verify: (key: string) => verification.ensure(key) } : {}),
      read: (key) => source.read(key),
      stream: (key) => source.stream(key),
      ...(source.range ? { range: (key: string, start: number, end: number) => source.range!(key, start, end) } : {}),
      known: owner,
      ...(source.current ? { current: (key: string) => source.current!(key) } : {}),
      ...(source.deflated && !source.current ? { deflated: (key: string) => source.deflated!(key) } : {}),
      ...(this.background && source === this.source ? { brotli: (key: string, sha256: string) => this.background?.representation(key, sha256) } : {}),
    };
  }

  private served(type: string, sha256: string, body: Uint8Array | undefined, size: number, file: LayerFile, reader: FileReader, route: Route | undefined, encodings?: Encodings): StaticLookup {
    return {
      kind: 'hit',
      file: {
        contentType: contentTypeHeader(type),
        etag: `"${sha256}"`,
        size,
        cacheControl: this.options.cacheControl,
        ...(route ? { route } : {}),
        ...(body ? { body } : {}),
        // The whole file streams from its start, so an archive holds it to its CRC-32; a part is read where it lies when the source can.
        stream: (start, end) => exactly((start > 0 || end < size - 1 ? reader.range?.(file.key, start, end) : undefined) ?? streamRange(reader.stream(file.key), start, end), end - start + 1, file.key),
        ...(encodings ? { encodings } : {}),
        ...((!body && size > MEMORY_FILE_LIMIT && reader.deflated?.(file.key)) || refusesRanges(route) ? { ranges: false as const } : {}),
      },
    };
  }

  /** Type, digest and (when small enough and the budget allows) the bytes of a file. */
  private load(file: LayerFile, reader: FileReader): Promise<FileState> {
    let loading = this.files.get(file);
    if (!loading) {
      loading = this.read(file, reader);
      this.files.set(file, loading);
      loading.catch(() => this.files.delete(file));
    }
    return loading;
  }

  private async read(file: LayerFile, reader: FileReader): Promise<FileState> {
    const known = reader.known?.manifest[file.key];
    const now = await reader.current?.(file.key);
    const size = now?.size ?? file.size;
    // A file that may change is hashed as read: a digest from load time may describe other bytes.
    const state: FileState = { type: typeOf(known?.type, file.key), sha256: reader.current ? undefined : reader.known?.digests.get(file.key), size, ...(now ? { version: now.version } : {}) };
    if (size <= MEMORY_FILE_LIMIT && this.budget.take(size)) {
      let bytes: Uint8Array;
      try {
        // A lazily verified package checks these very bytes as they are read.
        bytes = compactBytes(await reader.read(file.key));
      } finally {
        this.budget.give(size);
      }
      if (this.budget.take(bytes.length)) state.bytes = bytes;
      state.size = bytes.length;
      state.sha256 ??= this.hasher.sha256(bytes);
    } else {
      // Streamed later: checked whole now, before any answer commits to it.
      await reader.verify?.(file.key);
    }
    // No manifest entry and an extension that says nothing: sniff the bytes, as generation would.
    if (!known && typeByExtension(file.key) === undefined && state.bytes) state.type = detectType(file.key, state.bytes.subarray(0, 512));
    if (state.sha256 === undefined) {
      const hash = this.hasher.createSha256();
      let measured = 0;
      for await (const chunk of reader.stream(file.key)) {
        hash.update(chunk);
        measured += chunk.length;
      }
      state.sha256 = hash.digest();
      state.size = measured;
    }
    return state;
  }
}

interface FileReader {
  read(key: string): Promise<Uint8Array>;
  stream(key: string): AsyncIterable<Uint8Array>;
  /** Present for sources that read a range where it lies (see PackageSource.range). */
  range?(key: string, start: number, end: number): AsyncIterable<Uint8Array> | undefined;
  /** Present for files that may change while served. */
  current?(key: string): Promise<{ size: number; version: string } | undefined>;
  /** Present for archives: an entry stored deflated, whose raw bytes can answer gzip. */
  deflated?(key: string): DeflatedEntry | undefined;
  /** Present for the package's own archive once its background pass runs: the entry's brotli form, when it is one the pass compresses. */
  brotli?(key: string, sha256: string): Encodings['br'];
  /** Present while the package's files are checked lazily: resolves once the file is checked and intact. */
  verify?(key: string): Promise<void>;
  /** Package files have manifest types and verified digests; overlay files have neither. */
  known?: { manifest: Manifest; digests: DigestLookup };
}

async function* streamRange(stream: AsyncIterable<Uint8Array>, start: number, end: number): AsyncIterable<Uint8Array> {
  let position = 0;
  for await (const chunk of stream) {
    const chunkEnd = position + chunk.length;
    if (chunkEnd > start && position <= end) yield chunk.subarray(Math.max(0, start - position), Math.min(chunk.length, end - position + 1));
    position = chunkEnd;
    if (position > end) return;
  }
}

/**
 * The page with the live-reload script before its closing body tag (or at its end). A page
 * that is not UTF-8 (UTF-16, say) goes as it is: decoded as UTF-8 and written back, its
 * bytes would be lost. A BOM stays.
 */
function withLiveReload(page: Uint8Array): Uint8Array {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(page);
  } catch {
    return page;
  }
  const at = text.toLowerCase().lastIndexOf('</body>');
  return new TextEncoder().encode(at < 0 ? text + LIVE_RELOAD_SCRIPT : text.slice(0, at) + LIVE_RELOAD_SCRIPT + text.slice(at));
}

/**
 * Exactly `length` bytes, the Content-Length already sent: extra bytes (a file grown since
 * it was measured) are not sent, and a file that shrank fails the response, which closes
 * the connection, rather than leave the client waiting or the next response misframed.
 */
async function* exactly(stream: AsyncIterable<Uint8Array>, length: number, key: string): AsyncIterable<Uint8Array> {
  let left = length;
  for await (const chunk of stream) {
    if (left <= 0) return;
    const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
    left -= part.length;
    yield part;
  }
  if (left > 0) throw new SourceChangedError(`${key} shrank while it was being sent (${left} of ${length} bytes missing)`);
}

/**
 * The layer stack of a package: its declared layers bottom to top, with content/ at the
 * bottom when no layer names it, or content/ alone when none are declared.
 */
export function packageLayers(source: PackageSource, model: Pick<PackageModel, 'storage'>, tombstones: ReadonlyMap<string, string[]>): Layer[] {
  return layerRoots(model).map(({ root, writable, exported }) => ({
    name: root.slice(0, -1),
    writable,
    exported,
    files: new SourceLayerFiles(source, root),
    tombstones: new Set(tombstones.get(root)),
  }));
}

/** The `.pkg-tombstones` file of each layer root that has one. */
export function tombstoneFiles(model: Pick<PackageModel, 'storage'>): string[] {
  return layerRoots(model).map(({ root }) => root + TOMBSTONES_FILE);
}

/** Declared layers bottom to top, as `dir/` roots, with content/ at the bottom unless declared. */
export function layerRoots(model: Pick<PackageModel, 'storage'>): Array<{ root: string; writable: boolean; exported: boolean }> {
  const roots = (model.storage?.layers ?? []).map((layer) => ({ root: layer.path.replace(/\/?$/, '/'), writable: layer.writable, exported: layer.visibility === 'exported' }));
  if (!roots.some((layer) => layer.root === CONTENT_DIR)) roots.unshift({ root: CONTENT_DIR, writable: false, exported: true });
  return roots;
}

/** Whether the route sends `Accept-Ranges: none`: its answers keep to it. */
function refusesRanges(route: Route | undefined): boolean {
  return route !== undefined && routeHeader(route, 'Accept-Ranges')?.trim().toLowerCase() === 'none';
}

/** A file removed from a directory source since it was listed: answered as a path that has no file. */
function missing(error: unknown): undefined {
  if (error instanceof SourceNotFoundError) return undefined;
  throw error;
}
