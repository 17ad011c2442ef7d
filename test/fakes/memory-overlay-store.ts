import type { AppendLog, OverlayFile, OverlayMount, OverlayStore, PackageOverlay } from '../../src/application/ports/overlay-store.js';
import { OverlayError } from '../../src/domain/errors.js';
import { overlayKey } from '../../src/domain/serving/overlay-key.js';
import { unsafePathReason } from '../../src/domain/package/package-paths.js';

/**
 * Overlays held in memory, keyed as FsOverlayStore keys them (workdir and mount), for
 * unit tests; `failAppends` makes every append fail, and `appendDelayMs` makes each one take
 * that long, as a sync to disk can (so requests overlap it). Kept honest by
 * test/contracts/overlay-store.contract.ts.
 */
export class MemoryOverlayStore implements OverlayStore {
  readonly overlays = new Map<string, MemoryPackageOverlay>();
  failAppends = false;
  appendDelayMs = 0;

  async open(workdir: string, mount: OverlayMount): Promise<MemoryPackageOverlay> {
    return this.at(workdir, mount);
  }

  /** The overlay of a mount, for assertions. */
  at(workdir: string, mount: OverlayMount = { path: '/', packageName: 'demo-site' }): MemoryPackageOverlay {
    const key = `${workdir}/overlays/${overlayKey(mount.path, mount.packageName)}`;
    let overlay = this.overlays.get(key);
    if (!overlay) this.overlays.set(key, (overlay = new MemoryPackageOverlay(key, this)));
    return overlay;
  }
}

export class MemoryPackageOverlay implements PackageOverlay {
  readonly files = new Map<string, Uint8Array>();
  readonly logs = new Map<string, Uint8Array>();
  tombstoneList: string[] = [];

  constructor(
    readonly location: string,
    private readonly store: MemoryOverlayStore,
  ) {}

  async contentFiles(): Promise<OverlayFile[]> {
    return [...this.files].map(([path, bytes]) => ({ path, size: bytes.length }));
  }

  async readContent(path: string): Promise<Uint8Array> {
    const bytes = this.files.get(checked(path));
    if (!bytes) throw new Error(`no overlay file ${path}`);
    return bytes;
  }

  async *streamContent(path: string): AsyncIterable<Uint8Array> {
    yield await this.readContent(path);
  }

  async writeContent(path: string, bytes: Uint8Array): Promise<void> {
    // A copy: the caller's buffer may be reused, a file on disk would not change with it.
    this.files.set(checked(path), bytes.slice());
  }

  async removeContent(path: string): Promise<void> {
    this.files.delete(checked(path));
  }

  async tombstones(): Promise<string[]> {
    return [...this.tombstoneList];
  }

  async writeTombstones(paths: readonly string[]): Promise<void> {
    this.tombstoneList = [...paths];
  }

  async readLog(dataset: string): Promise<Uint8Array> {
    return this.logs.get(dataset) ?? new Uint8Array();
  }

  async openLog(dataset: string, length: number): Promise<AppendLog> {
    const current = this.logs.get(dataset) ?? new Uint8Array();
    if (current.subarray(length).includes(0x0a)) throw new OverlayError(`the log of ${dataset} holds operations written after it was read`);
    this.logs.set(dataset, current.subarray(0, length));
    return {
      append: async (bytes) => {
        if (this.store.appendDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.store.appendDelayMs));
        if (this.store.failAppends) throw new Error('append failed');
        const current = this.logs.get(dataset)!;
        const next = new Uint8Array(current.length + bytes.length);
        next.set(current);
        next.set(bytes, current.length);
        this.logs.set(dataset, next);
      },
      close: async () => undefined,
    };
  }

  /** The log as text, for assertions. */
  logText(dataset: string): string {
    return new TextDecoder().decode(this.logs.get(dataset) ?? new Uint8Array());
  }
}

/** Content paths stay below the content root, as on disk. */
function checked(path: string): string {
  const reason = unsafePathReason(path);
  if (reason) throw new OverlayError(`unsafe overlay path ${path}: ${reason}`);
  return path;
}
