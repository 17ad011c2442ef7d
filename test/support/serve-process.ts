import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './paths.js';

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built `pkg reactor serve` on a free loopback port (or `port`), as `user` when given (which takes root), and waits for its banner. */
export function startServe(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; port?: number; user?: { uid: number; gid: number } } = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'reactor', 'serve', '--port', String(options.port ?? 0), ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], ...options.user });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`reactor did not start in time:\n${out}\n${err}`));
    }, 30_000);
    const onData = () => {
      const match = /Reactor listening on (http:\/\/[^\s"]+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({
        url: match[1]!,
        child,
        stdout: () => out,
        stderr: () => err,
        stop: (signal = 'SIGTERM') => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`reactor exited with ${code} before listening:\n${out}\n${err}`), { code, stdout: out, stderr: err }));
    });
  });
}

/** Runs serve expecting it to fail at start-up; resolves with its exit code and output. */
export async function failingServe(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  try {
    const running = await startServe(args, options);
    await running.stop('SIGKILL');
    throw new Error('reactor started but was expected to fail');
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number | null; stdout?: string; stderr?: string };
    if (stderr === undefined) throw error;
    return { code: code ?? null, stdout: stdout ?? '', stderr };
  }
}
