// Cold start of the 10,000-file / 200 MB package (the pack bench's, made here when absent):
// time from spawn to the first 200 of one file. `--verify lazy` beside a bare node +
// express.static start on the extracted tree (target within 1.5x); `--verify eager` beside
// `unzip -t` + `sha256sum -c` on the same package, the work it cannot avoid (target 1.0x).
// Alone: `node bench/run.js cold-start`. BENCH_COLD_ROUNDS sets the best-of count (5).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, OUT, ROOT, best, fmt, freePort, has, launch, shell, verdict } from './lib.js';
import { fixture, makeFixture } from './pack.bench.js';

const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 5);
const PROBE = '/d7/blob-7.bin';
const work = join(OUT, 'cold-start');

/**
 * The best (shortest) spawn-to-first-200 of several starts of each command, the commands
 * taking turns: the machine's speed drifts over a run by more than the ratios' margins,
 * and all of one command's starts before the other's would charge that drift to one side
 * (as the serve bench's servers take turns). `after` sees each running server before it stops.
 */
async function bestStarts(commands) {
  const winners = {};
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, { command, after }] of Object.entries(commands)) {
      const port = await freePort();
      const [program, args] = command(port);
      const server = await launch(program, args, `http://127.0.0.1:${port}${PROBE}`);
      try {
        const extra = after ? await after(port, server) : {};
        if (!winners[name] || server.seconds < winners[name].seconds) winners[name] = { seconds: server.seconds, ...extra };
      } finally {
        await server.stop();
      }
    }
  return winners;
}

const reactor = (cap, mode) => (port) => ['node', [CLI, 'reactor', 'serve', cap, '--verify', mode, '--port', String(port), '--quiet']];

/** Spawn to the end of the background pass: content-validity waits for a pass under way. */
async function backgroundPass(port, server) {
  const asked = process.hrtime.bigint();
  const answer = await fetch(`http://127.0.0.1:${port}/api/v1/introspect/content-validity`);
  const [validity] = (await answer.json()).contentValidity;
  if (!validity.valid) throw new Error(`the untampered package was reported invalid: ${validity.reason}`);
  return { passDone: server.seconds + Number(process.hrtime.bigint() - asked) / 1e9, rss: server.rssMb() };
}

export async function run() {
  for (const tool of ['zip', 'unzip', 'sha256sum']) if (!has(tool)) return console.log(`cold-start bench skipped: ${tool} is not installed`);
  makeFixture();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync('node', [CLI, 'package', 'pack', fixture, '-o', work]);
  const cap = join(work, 'bench-pack-1.0.0.cap');
  const extracted = join(work, 'extracted');
  shell(`unzip -q ${cap} -d ${extracted} && cd ${extracted} && find . -type f ! -name security.json -print0 | xargs -0 sha256sum > ${work}/SUMS`);
  if (!existsSync(join(extracted, 'content', PROBE))) throw new Error(`${PROBE} is not in the fixture`);
  shell(`cat ${cap} $(find ${extracted} -type f) > /dev/null`); // the page cache warm for every side
  console.log(`\n== cold start: 10,000-file / 200 MB package (${(Number(shell(`stat -c %s ${cap}`).stdout) / 1e6).toFixed(0)} MB packed), spawn to first 200 of ${PROBE}, best of ${ROUNDS} ==`);

  // The same archive less its security.json: what the reactor's start costs with nothing to verify.
  const unverified = join(work, 'without-security.cap');
  shell(`cp ${cap} ${unverified} && zip -q -d ${unverified} security.json`);
  const { express, lazy, bare } = await bestStarts({
    express: { command: (port) => ['node', [join(ROOT, 'bench/servers/express-static.js'), join(extracted, 'content'), String(port)]] },
    lazy: { command: reactor(cap, 'lazy'), after: backgroundPass },
    bare: { command: reactor(unverified, 'eager') },
  });
  console.log(`bare node + express.static on the extracted tree: ${fmt(express.seconds, 3)} s`);
  console.log(`reactor, the same package without security.json (nothing to verify): first 200 after ${fmt(bare.seconds, 3)} s`);
  console.log(`reactor --verify lazy: first 200 after ${fmt(lazy.seconds, 3)} s (${fmt((lazy.seconds - bare.seconds) * 1000, 0)} ms for verification); background pass done ${fmt(lazy.passDone)} s after spawn (valid), ${fmt(lazy.rss, 0)} MB resident then`);
  console.log(`lazy / express.static: ${verdict(lazy.seconds / express.seconds, 1.5)}`);

  const floor = best(ROUNDS, () => shell(`unzip -tq ${cap} && cd ${extracted} && sha256sum -c --quiet ${work}/SUMS`));
  const { eager } = await bestStarts({ eager: { command: reactor(cap, 'eager') } });
  console.log(`unzip -t + sha256sum -c: ${fmt(floor.seconds, 3)} s; reactor --verify eager: first 200 after ${fmt(eager.seconds, 3)} s`);
  console.log(`eager / (unzip -t + sha256sum -c): ${verdict(eager.seconds / floor.seconds, 1.0)}`);
}
