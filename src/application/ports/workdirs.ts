/** A workdir taken by one reactor; released when it stops. */
export interface WorkdirHold {
  release(): Promise<void>;
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
}
