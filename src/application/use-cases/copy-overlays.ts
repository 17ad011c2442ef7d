import { OverlayError } from '../../domain/errors.js';
import { parseOperationLog } from '../../domain/data/operation-log.js';
import type { OverlayBackends, OverlayMount, OverlayStore, PackageOverlay } from '../ports/overlay-store.js';
import type { WorkdirHold, Workdirs } from '../ports/workdirs.js';

/** One side of a copy: a reactor's workdir, or a database several reactors share. */
export interface OverlayPlace {
  /** `postgres://...`; absent for the workdir's files. */
  overlay?: string;
  /** The workdir whose files are copied (or copied into); also the one taken while copying. */
  workdir: string;
}

export interface CopiedOverlay {
  mount: OverlayMount;
  files: number;
  tombstones: number;
  /** Operations per dataset log. */
  operations: Record<string, number>;
}

/**
 * `pkg reactor overlay copy`: moves the writes of every mount's overlay from one store to
 * another (a workdir's files into PostgreSQL, or back), so one reactor can grow into
 * several without losing them. Each workdir taken part is held as a reactor holds it, so
 * none runs on it meanwhile; an overlay that already holds writes in the target is refused,
 * never merged, since two histories of one dataset cannot be told apart.
 */
export class CopyOverlays {
  constructor(
    private readonly backends: OverlayBackends,
    private readonly workdirs: Workdirs,
  ) {}

  async execute(from: OverlayPlace, to: OverlayPlace): Promise<CopiedOverlay[]> {
    const holds: WorkdirHold[] = [];
    const opened: Array<{ close(): Promise<void> }> = [];
    try {
      // The source is read, never made: a typo'd path would otherwise copy nothing and say so.
      if (from.overlay === undefined) holds.push(await this.workdirs.claimExisting(from.workdir));
      if (to.overlay === undefined) holds.push(await this.workdirs.claim(to.workdir));
      const source = await this.backends.open(from.overlay);
      opened.push(source);
      const target = await this.backends.open(to.overlay);
      opened.push(target);
      const mounts = await source.overlays.list(from.workdir);
      const pairs = await Promise.all(mounts.map(async (mount) => ({ mount, source: await source.overlays.open(from.workdir, mount), target: await target.overlays.open(to.workdir, mount) })));
      for (const pair of pairs) await refuseWrites(pair.target, pair.mount, target.overlays);
      const copied: CopiedOverlay[] = [];
      for (const pair of pairs) copied.push(await copy(pair.mount, pair.source, pair.target));
      return copied;
    } finally {
      for (const store of opened.reverse()) await store.close().catch(() => undefined);
      for (const hold of holds) await hold.release();
    }
  }
}

async function refuseWrites(target: PackageOverlay, mount: OverlayMount, store: OverlayStore): Promise<void> {
  const [files, tombstones, logs] = await Promise.all([target.contentFiles(), target.tombstones(), target.logs()]);
  if (files.length + tombstones.length + logs.length > 0) throw new OverlayError(`${store.description} already holds writes of mount ${mount.path} (${mount.packageName}); nothing was copied: copy into an empty store`);
}

async function copy(mount: OverlayMount, source: PackageOverlay, target: PackageOverlay): Promise<CopiedOverlay> {
  const tombstones = await source.tombstones();
  for (const path of tombstones) await target.deleteContent(path);
  const files = await source.contentFiles();
  for (const file of files) await target.writeContent(file.path, await source.readContent(file.path));
  const operations: Record<string, number> = {};
  for (const dataset of await source.logs()) {
    // A torn last line was never acknowledged: it stays behind.
    const whole = await source.readLog(dataset);
    const log = parseOperationLog(whole, `${source.location} (${dataset})`);
    const bytes = wholeLines(whole.subarray(0, log.validLength));
    const appended = await target.openLog(dataset, 0);
    try {
      await appended.append(() => bytes);
    } finally {
      await appended.close();
    }
    operations[dataset] = log.operations.length;
  }
  return { mount, files: files.length, tombstones: tombstones.length, operations };
}

/** A last operation written whole but for its newline gets one: the target takes whole lines. */
function wholeLines(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return bytes;
  const ended = new Uint8Array(bytes.length + 1);
  ended.set(bytes);
  ended[bytes.length] = 0x0a;
  return ended;
}
