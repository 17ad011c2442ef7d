import { spawnSync } from 'node:child_process';
import { CLI } from './paths.js';

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `pkg` binary as a user would. */
export function runPkg(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliRun {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
