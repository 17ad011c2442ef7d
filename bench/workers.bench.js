// Static GET with `pkg reactor serve --workers 2` against `--workers 1` on this machine
// (the load generator takes part of a core), and the server's CPU per request: user+sys
// time of the primary and every worker, from /proc/<pid>/stat, before and after each run.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { CLI, OUT, cpuSeconds, fmt, freePort, has, launch } from './lib.js';
import { makeSite, warmUp, wrkRun } from './serve.bench.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

/** A process and its children (a primary's workers), as pids. */
function tree(pid) {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  return [pid, ...children.flatMap(tree)];
}

async function measure(cap, workers) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/index.html`;
  const server = await launch('node', [CLI, 'reactor', 'serve', cap, '--port', String(port), '--workers', String(workers), '--quiet'], url);
  try {
    // Until every worker listens, some requests would meet fewer of them: the primary's banner says all do.
    await new Promise((resolve) => setTimeout(resolve, 500));
    warmUp([url]);
    const pids = tree(server.child.pid);
    const before = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const { rate, requests } = wrkRun(url);
    const after = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    return { rate, cpuPerRequest: (after - before) / requests, processes: pids.length };
  } finally {
    await server.stop();
  }
}

export async function run() {
  if (!has('wrk')) return console.log('workers bench skipped: wrk is not installed (apt-get install wrk)');
  const work = join(OUT, 'workers-work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync('node', [CLI, 'package', 'pack', makeSite(), '-o', work]);
  const cap = join(work, 'bench-serve-1.0.0.cap');
  console.log(`\n== serve --workers: static GET of index.html, --workers 2 against --workers 1 (${availableParallelism()} cores; best of ${ROUNDS}, taking turns) ==`);
  const best = {};
  for (let round = 0; round < ROUNDS; round++)
    for (const workers of [1, 2]) {
      const result = await measure(cap, workers);
      if (!best[workers] || result.rate > best[workers].rate) best[workers] = result;
    }
  for (const workers of [1, 2]) {
    const { rate, cpuPerRequest, processes } = best[workers];
    console.log(`--workers ${workers}: ${fmt(rate, 0).padStart(7)} req/s, server CPU ${fmt(cpuPerRequest * 1e6, 1)} µs per request (${processes} process${processes === 1 ? '' : 'es'})`);
  }
  console.log(`--workers 2 / --workers 1: ${fmt(best[2].rate / best[1].rate)}x the requests per second, ${fmt(best[2].cpuPerRequest / best[1].cpuPerRequest)}x the CPU per request`);
}
