import { spawn, spawnSync } from 'node:child_process';
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

/** Runs the built `pkg` without blocking the test's event loop (for servers the test itself runs, and for runs side by side). */
export function runPkgAsync(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (status) => resolve({ status: status ?? -1, stdout, stderr }));
  });
}
