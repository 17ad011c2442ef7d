/** What one process of a reactor tells the others about itself, by name. */
export type ProcessReport = 'requests' | 'logs' | 'prometheus';

/**
 * The processes of one reactor that serves with several (`--workers`): each answers its
 * share of the requests, and what the reactor reports (metrics, the access log) is the
 * sum of what each one saw.
 */
export interface ReactorProcesses {
  /** When the reactor started: its uptime, whichever process answers (one started again after a crash too). */
  readonly started: Date;
  /** Every live process's answer to `report` (this one's included), in no set order. */
  gather(report: ProcessReport, argument: number): Promise<unknown[]>;
  /** How this process answers when one of them gathers `report`. */
  answer(report: ProcessReport, answer: (argument: number) => unknown): void;
}
