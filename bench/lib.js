// Shared helpers for the benchmark scenarios: timing commands and reading their peak memory.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
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
