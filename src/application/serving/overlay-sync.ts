import type { PackageDatasets } from '../data/package-datasets.js';
import type { OverlayChange } from '../ports/overlay-store.js';
import type { ServedPackage } from './served-package.js';

/** What of a mount a change elsewhere touches. */
export interface FollowedMount {
  pkg: ServedPackage;
  datasets: PackageDatasets;
  /** While what another reactor sharing the overlay changed is read in: requests to the mount wait for it. */
  catchingUp?: Promise<void>;
}

/**
 * Applies what other reactors sharing a mount's overlay change there. A file written or
 * deleted elsewhere is served, or 404, from the next request on; a dataset appended to
 * elsewhere catches up with its log, and requests to the mount wait meanwhile
 * (`mount.catchingUp`), so none answers from before a write it was told of.
 */
export class OverlaySync {
  private readonly stops = new Map<FollowedMount, () => void>();

  /** Hears the mount's overlay, as it is now (after a reload, the new one's). */
  follow(mount: FollowedMount): void {
    this.stops.get(mount)?.();
    this.stops.delete(mount);
    const overlay = mount.pkg.overlay;
    if (overlay) this.stops.set(mount, overlay.files.watch((change) => this.apply(mount, change)));
  }

  close(): void {
    for (const stop of this.stops.values()) stop();
    this.stops.clear();
  }

  private apply(mount: FollowedMount, change: OverlayChange): void {
    switch (change.kind) {
      case 'written':
        return mount.pkg.overlayWritten(change.path, change.size);
      case 'deleted':
        return mount.pkg.overlayDeleted(change.path);
      case 'data':
        if (mount.datasets.has(change.dataset)) this.hold(mount, mount.datasets.get(change.dataset).catchUp());
        return;
      case 'any':
        return this.hold(mount, this.readAgain(mount));
      case 'unheard':
        return this.hold(mount, change.heard);
    }
  }

  /** After changes may have been missed: every file and tombstone of the overlay, and every dataset's log. */
  private async readAgain(mount: FollowedMount): Promise<void> {
    const { files } = mount.pkg.overlay!;
    const [written, tombstones] = await Promise.all([files.contentFiles(), files.tombstones()]);
    for (const file of written) mount.pkg.overlayWritten(file.path, file.size);
    for (const path of tombstones) mount.pkg.overlayDeleted(path);
    await Promise.all(mount.datasets.all().map((dataset) => dataset.catchUp()));
  }

  /**
   * Requests to the mount wait for `work` and for whatever it was already waiting for. A
   * catch-up that fails (the database is out of reach) lets them go: the reconnect reads
   * everything again.
   */
  private hold(mount: FollowedMount, work: Promise<void>): void {
    const all: Promise<void> = Promise.all([mount.catchingUp, work]).then(
      () => undefined,
      () => undefined,
    );
    mount.catchingUp = all;
    void all.then(() => {
      if (mount.catchingUp === all) mount.catchingUp = undefined;
    });
  }
}
