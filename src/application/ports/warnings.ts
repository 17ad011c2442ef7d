/** Where a run reports what it skipped or worked around without failing. */
export interface Warnings {
  warn(message: string): void;
}
