/** A workdir taken by one reactor; released when it stops. */
export interface WorkdirHold {
  release(): Promise<void>;
}

/** A reactor's workdir, taken for it: the one it was given, or a fresh temporary one. */
export interface TakenWorkdir extends WorkdirHold {
  /** Absolute. */
  path: string;
  /** Made for this run: release removes it. */
  temporary: boolean;
}

/** The reactor's working directories: overlays, saved packages, decrypted plaintext. */
export interface Workdirs {
  /**
   * Takes the workdir for this reactor alone (WorkdirLockedError while another live
   * reactor holds it) and removes what a reactor that died there left behind: decrypted
   * plaintext and half-written files. Two reactors appending to one overlay would lose
   * writes; sharing writes is a database's job.
   */
  claim(workdir: string): Promise<WorkdirHold>;
  /**
   * Claims a workdir a reactor has used, to read its overlays: OverlayError when the
   * folder holds none (a typo'd path, a package), which claiming would make a workdir of,
   * sweeping its `decrypted/`.
   */
  claimExisting(workdir: string): Promise<WorkdirHold>;
  /** Claims `workdir`, or without one makes a fresh temporary directory and claims that (released, it is removed). */
  take(workdir: string | undefined): Promise<TakenWorkdir>;
}
