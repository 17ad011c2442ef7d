import type { MountFailure, MountRequest, ReactorSettings } from '../serving/reactor.js';

export interface MountedPackage {
  prefix: string;
  source: string;
  name: string;
  version: string;
}

export interface RunningReactor {
  /** `http://host:port` the reactor listens on. */
  url: string;
  port: number;
  workdir: string;
  /** Whether the workdir was made for this run (and is removed by stop). */
  temporaryWorkdir: boolean;
  mounts: MountedPackage[];
  failures: MountFailure[];
  /** Things the operator should know that did not stop a mount (a torn overlay log line). */
  warnings: string[];
  /** Stops listening, closes every mount and removes the reactor's temporary files. */
  stop(): Promise<void>;
}

/** Starts a reactor over HTTP: the CLI's serve command and package tests both use it. */
export interface ReactorHost {
  start(requests: MountRequest[], settings: ReactorSettings, options?: { quiet?: boolean; warn?: (warning: string) => void }): Promise<RunningReactor>;
}
