import type { AppendLog, LogTail, OverlayChange, OverlayFile, OverlayMount, OverlayStore, PackageOverlay } from '../../application/ports/overlay-store.js';
import type { LogPlace } from '../../domain/data/log-place.js';
import type { WorkerLink } from './worker-link.js';

/**
 * A worker's overlay store when the primary is the one writer of the workdir's files:
 * every call goes to the primary, which does it with the real store. Other workers'
 * changes come back as `watch` events, as from a store several reactors share.
 */
export class IpcOverlayStore implements OverlayStore {
  readonly description = 'files in the workdir, written by the primary process';
  /** Shared by this reactor's processes only: sessions need nothing more than the workdir's. */
  readonly shared = false;

  constructor(private readonly link: WorkerLink) {}

  async open(workdir: string, mount: OverlayMount): Promise<PackageOverlay> {
    return new IpcPackageOverlay(this.link, await this.link.call<string>('open', workdir, mount));
  }

  /** The workdir's files answer as long as the primary does. */
  async reachable(): Promise<boolean> {
    return true;
  }

  list(workdir: string): Promise<OverlayMount[]> {
    return this.link.call('list', workdir);
  }

  async close(): Promise<void> {}
}

class IpcPackageOverlay implements PackageOverlay {
  constructor(
    private readonly link: WorkerLink,
    readonly location: string,
  ) {}

  contentFiles(): Promise<OverlayFile[]> {
    return this.link.call('contentFiles', this.location);
  }

  readContent(path: string): Promise<Uint8Array> {
    return this.link.call('readContent', this.location, path);
  }

  /** Written content is text within the body limit: it crosses whole. */
  async *streamContent(path: string): AsyncIterable<Uint8Array> {
    yield await this.readContent(path);
  }

  async writeContent(path: string, bytes: Uint8Array): Promise<boolean> {
    await this.link.call('writeContent', this.location, path, bytes);
    return true;
  }

  async deleteContent(path: string): Promise<boolean> {
    await this.link.call('deleteContent', this.location, path);
    return true;
  }

  tombstones(): Promise<string[]> {
    return this.link.call('tombstones', this.location);
  }

  /** Under the primary's hold of this overlay's content, which the other workers' writes wait for. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const hold = await this.link.call<number>('holdContent', this.location);
    try {
      return await work();
    } finally {
      // A primary that is gone holds nothing any more.
      await this.link.call('releaseContent', hold).catch(() => undefined);
    }
  }

  readLog(dataset: string): Promise<Uint8Array> {
    return this.link.call('readLog', this.location, dataset);
  }

  readLogFrom(dataset: string, from: LogPlace): Promise<LogTail> {
    return this.link.call('readLogFrom', this.location, dataset, from);
  }

  logs(): Promise<string[]> {
    return this.link.call('logs', this.location);
  }

  async openLog(dataset: string, length: number): Promise<AppendLog> {
    return new IpcAppendLog(this.link, await this.link.call<number>('openLog', this.location, dataset, length));
  }

  /** From now on, after reading the overlay again: what other workers changed since it was opened was told to no one here. */
  watch(listener: (change: OverlayChange) => void): () => void {
    const stop = this.link.onChange(this.location, listener);
    listener({ kind: 'any' });
    return stop;
  }
}

/** The primary keeps this log's position and its hold; this end only decides. */
class IpcAppendLog implements AppendLog {
  constructor(
    private readonly link: WorkerLink,
    private readonly handle: number,
  ) {}

  async append(decide: (appendedElsewhere: Uint8Array) => Uint8Array): Promise<void> {
    const elsewhere = await this.link.call<Uint8Array>('hold', this.handle);
    let bytes: Uint8Array;
    try {
      bytes = decide(elsewhere);
    } catch (error) {
      await this.link.call('release', this.handle);
      throw error;
    }
    await this.link.call('commit', this.handle, bytes);
  }

  catchUp(): Promise<Uint8Array> {
    return this.link.call('catchUp', this.handle);
  }

  close(): Promise<void> {
    return this.link.call('closeLog', this.handle);
  }
}
