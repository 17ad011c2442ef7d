// Shared helpers for the benchmark scenarios: timing commands and reading their peak memory.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = join(ROOT, 'bench/out');
export const CLI = join(ROOT, 'dist/pkg.js');
mkdirSync(OUT, { recursive: true });

const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Runs a command to completion; returns wall seconds and peak resident memory in MB. */
export function timed(command, args, options = {}) {
  const start = process.hrtime.bigint();
  const result = GNU_TIME
    ? spawnSync(GNU_TIME, ['-f', '__PEAK_KB__ %M', command, ...args], { ...options, encoding: 'utf8', maxBuffer: 1 << 30 })
    : spawnSync(command, args, { ...options, encoding: 'utf8', maxBuffer: 1 << 30 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  const peak = /__PEAK_KB__ (\d+)/.exec(result.stderr ?? '');
  return { seconds, peakMb: peak ? Number(peak[1]) / 1024 : undefined, stdout: result.stdout };
}

export function shell(script, options = {}) {
  return timed('bash', ['-c', script], options);
}

export function has(command) {
  try {
    execFileSync('bash', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Best of n runs: the floor and ours are both measured warm, the same way. */
export function best(n, run) {
  let winner;
  for (let i = 0; i < n; i++) {
    const result = run();
    if (!winner || result.seconds < winner.seconds) winner = result;
  }
  return winner;
}

export const fmt = (n, digits = 2) => (n === undefined ? 'n/a' : n.toFixed(digits));

export function verdict(ratio, target, lowerIsBetter = true) {
  const ok = lowerIsBetter ? ratio <= target : ratio >= target;
  return `${fmt(ratio)}x (target ${lowerIsBetter ? '<=' : '>='} ${target}x: ${ok ? 'met' : 'NOT met'})`;
}

export function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns a server and resolves once `url` answers 200 (asked with `headers`). */
export async function launch(command, args, url, { headers = {}, ...options } = {}) {
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited: ${stderr}`);
    try {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    child,
    seconds,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

let ticks;
/** user + system CPU seconds a process has used (fields 14 and 15 of its stat, after the command name). */
export function cpuSeconds(pid) {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}
