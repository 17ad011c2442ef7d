// Requests per second for a small HTML file and a 20 KB asset, served by our reactor
// from a .cap beside the Node ceiling (node:http from memory), express 5 from memory,
// express.static and nginx over the extracted files; then cold start and memory on a
// 10,000-file / 200 MB package. Everything runs in one process tree, on loopback.
import { execFileSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, OUT, ROOT, best, cpuSeconds, fmt, has, shell, verdict, freePort, launch } from './lib.js';

const DURATION = process.env.BENCH_DURATION ?? '8s';
const CONNECTIONS = process.env.BENCH_CONNECTIONS ?? '32';
const SERVE_ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 2);
/**
 * Load a freshly started server gets before it is measured, its figures thrown away: the
 * first requests of a fresh process run unoptimized (as the data bench says too), and a
 * reactor has more of its own code on the path than node:http for the JIT to reach.
 */
const WARM_UP = process.env.BENCH_WARM_UP ?? '3s';
// BENCH_DURATION, BENCH_CONNECTIONS, BENCH_SERVE_ROUNDS, BENCH_WARM_UP and BENCH_SKIP_COLD tune a run.

export function wrk(url, headers = {}) {
  return wrkRun(url, headers).rate;
}

/** Load on each of `urls` (with `headers`) for WARM_UP, its figures thrown away. */
export function warmUp(urls, headers = {}) {
  for (const url of urls) wrkRun(url, headers, WARM_UP);
}

/** One wrk run: its rate, and how many requests it made. */
export function wrkRun(url, headers = {}, duration = DURATION) {
  const flags = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const output = execFileSync('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${duration}`, ...flags, url], { encoding: 'utf8' });
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  if (errors) throw new Error(`wrk saw ${errors[1]} error responses from ${url}`);
  return { rate: Number(rate[1]), requests: Number(/(\d+) requests in/.exec(output)[1]) };
}

export function makeSite() {
  const site = join(OUT, 'serve-site');
  if (existsSync(join(site, 'metadata.json'))) return site;
  mkdirSync(join(site, 'content'), { recursive: true });
  writeFileSync(join(site, 'metadata.json'), JSON.stringify({ name: 'bench-serve', version: '1.0.0', description: 'benchmark', guid: 'pkg://bench/serve', uuid: '00000000-0000-0000-0000-000000000000' }));
  writeFileSync(join(site, 'content/index.html'), `<!doctype html><title>bench</title><p>${'small page '.repeat(80)}</p>\n`);
  writeFileSync(join(site, 'content/asset.js'), `// asset\n${randomBytes(15400).toString('base64').match(/.{1,76}/g).join('\n')}\n`.slice(0, 20 * 1024));
  return site;
}

async function throughput() {
  const site = makeSite();
  const work = join(OUT, 'serve-work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync('node', [CLI, 'package', 'pack', site, '-o', work]);
  const cap = join(work, 'bench-serve-1.0.0.cap');
  const files = join(site, 'content');
  const sizes = `index.html ${readFileSync(join(files, 'index.html')).length} B, asset.js ${readFileSync(join(files, 'asset.js')).length} B`;
  console.log(`\n== serve: requests per second (wrk -t1 -c${CONNECTIONS} -d${DURATION}, best of ${SERVE_ROUNDS} taking turns; ${sizes}) ==`);

  const servers = [
    ['reactor (.cap)', (port) => ['node', [CLI, 'reactor', 'serve', cap, '--port', String(port)]]],
    ...basicAuthServer(site, work),
    ['node:http, memory', (port) => ['node', [join(ROOT, 'bench/servers/node-memory.js'), files, String(port)]]],
    ['express 5, memory', (port) => ['node', [join(ROOT, 'bench/servers/express-memory.js'), files, String(port)]]],
    ['express.static', (port) => ['node', [join(ROOT, 'bench/servers/express-static.js'), files, String(port)]]],
  ];
  if (has('nginx')) servers.push(['nginx', (port) => nginxCommand(files, port, work)]);
  // The servers take turns and each keeps its best run: the machine's speed drifts over a
  // run by more than the ratios' margins, and one pass in a fixed order would charge that
  // drift to whichever server came last.
  const rounds = {};
  for (let round = 0; round < SERVE_ROUNDS; round++)
    for (const [name, command] of servers) {
      const port = await freePort();
      const [program, args] = command(port);
      const headers = command.headers ?? {};
      const server = await launch(program, args, `http://127.0.0.1:${port}/index.html`, { headers });
      try {
        warmUp([`http://127.0.0.1:${port}/index.html`, `http://127.0.0.1:${port}/asset.js`], headers);
        const html = wrk(`http://127.0.0.1:${port}/index.html`, headers);
        const asset = wrk(`http://127.0.0.1:${port}/asset.js`, headers);
        (rounds[name] ??= []).push({ html, asset });
      } finally {
        await server.stop();
      }
    }
  const results = Object.fromEntries(Object.entries(rounds).map(([name, runs]) => [name, { html: Math.max(...runs.map((run) => run.html)), asset: Math.max(...runs.map((run) => run.asset)) }]));
  for (const [name] of servers) console.log(`${name.padEnd(20)} html ${fmt(results[name].html, 0).padStart(7)} req/s   asset ${fmt(results[name].asset, 0).padStart(7)} req/s`);
  const ours = results['reactor (.cap)'];
  for (const file of ['html', 'asset']) {
    console.log(`${file}: reactor / node:http ${verdict(ours[file] / results['node:http, memory'][file], 0.9, false)}; reactor / express ${verdict(ours[file] / results['express 5, memory'][file], 5, false)}${results.nginx ? `; reactor / nginx ${fmt(ours[file] / results.nginx[file])}x` : ''}`);
  }
  // The best-of verdicts above can change from run to run: a slow round of either side moves them by more than their margin.
  const pairs = (file) => rounds['reactor (.cap)'].map((round, i) => fmt(round[file] / rounds['node:http, memory'][i][file])).join(', ');
  console.log(`reactor / node:http, each round's pair: html ${pairs('html')}; asset ${pairs('asset')} (no target)`);
  const guarded = results[BASIC_AUTH];
  if (guarded) for (const file of ['html', 'asset']) console.log(`${file} behind basic auth (bcrypt): ${fmt(guarded[file] / ours[file])}x the open reactor, ${fmt(guarded[file] / results['express 5, memory'][file])}x express`);
  await loggingCost(cap);
}

/**
 * What `--log-format json` costs the static path. A few percent is below the run-to-run
 * noise of a shared machine, so the text and JSON reactors take turns and each keeps its
 * best run; beside the rates, the server's CPU time per request (its least over the runs),
 * which the machine's other load moves less, the thread that writes JSON lines included.
 * launch() sends stdout to /dev/null: this measures building and writing lines.
 */
async function loggingCost(cap) {
  const ROUNDS = 6;
  const best = { text: 0, json: 0 };
  const cpu = { text: Infinity, json: Infinity };
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const rates = {};
    // Each goes first every other round: the one that always followed would meet the other's leftovers (its TIME_WAIT sockets, a warmer or cooler machine).
    for (const format of round % 2 === 0 ? ['text', 'json'] : ['json', 'text']) {
      const port = await freePort();
      const server = await launch('node', [CLI, 'reactor', 'serve', cap, '--port', String(port), '--log-format', format], `http://127.0.0.1:${port}/index.html`);
      try {
        warmUp([`http://127.0.0.1:${port}/index.html`]);
        const before = cpuSeconds(server.child.pid);
        const { rate, requests } = wrkRun(`http://127.0.0.1:${port}/index.html`);
        cpu[format] = Math.min(cpu[format], (cpuSeconds(server.child.pid) - before) / requests);
        best[format] = Math.max(best[format], rate);
        rates[format] = rate;
      } finally {
        await server.stop();
      }
    }
    ratios.push(rates.json / rates.text);
  }
  ratios.sort((a, b) => a - b);
  console.log(`html, best of ${ROUNDS} taking turns: text access lines ${fmt(best.text, 0)} req/s, JSON access lines ${fmt(best.json, 0)} req/s: ${verdict(best.json / best.text, 0.95, false)}`);
  // Beside the best runs, each round's pair: one lucky run of either side moves the best-of ratio by more than the 5% it tests.
  console.log(`JSON / text, each round's pair, taking turns: ${ratios.map((ratio) => fmt(ratio)).join(', ')}; median ${fmt((ratios[(ratios.length - 1) >> 1] + ratios[ratios.length >> 1]) / 2, 3)} (no target)`);
  console.log(`server CPU per request: text ${fmt(cpu.text * 1e6, 1)} µs, JSON ${fmt(cpu.json * 1e6, 1)} µs: JSON costs ${fmt((cpu.json / cpu.text - 1) * 100, 1)}% more (no target)`);
}

const BASIC_AUTH = 'reactor, basic auth';

/**
 * The same package behind basic auth with a bcrypt password file: every request carries
 * the credentials, as a browser's would, so this measures the remembered-credential path.
 */
function basicAuthServer(site, work) {
  if (!has('htpasswd')) return [];
  const guarded = join(work, 'auth-site');
  rmSync(guarded, { recursive: true, force: true });
  shell(`cp -r ${site} ${guarded}`);
  writeFileSync(join(guarded, 'authentication.json'), JSON.stringify({ authentication: { basicAuth: { enabled: true, realm: 'bench' } } }));
  execFileSync('htpasswd', ['-cbB', join(work, 'htpasswd'), 'bench', 'bench-password']);
  writeFileSync(join(work, 'deploy.json'), JSON.stringify({ authentication: { basicAuth: { passwdFile: 'htpasswd' } } }));
  mkdirSync(join(work, 'auth-cap'), { recursive: true });
  execFileSync('node', [CLI, 'package', 'pack', guarded, '-o', join(work, 'auth-cap')]);
  const command = (port) => ['node', [CLI, 'reactor', 'serve', join(work, 'auth-cap/bench-serve-1.0.0.cap'), '--port', String(port), '--deploy', join(work, 'deploy.json')]];
  command.headers = { Authorization: `Basic ${Buffer.from('bench:bench-password').toString('base64')}` };
  return [[BASIC_AUTH, command]];
}

function nginxCommand(root, port, work) {
  const conf = join(work, `nginx-${port}.conf`);
  writeFileSync(
    conf,
    `worker_processes 1; pid ${work}/nginx-${port}.pid; error_log stderr; daemon off;
events { worker_connections 1024; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000;
  types { text/html html; text/javascript js; }
  client_body_temp_path ${work}/nginx-tmp; proxy_temp_path ${work}/nginx-tmp; fastcgi_temp_path ${work}/nginx-tmp; uwsgi_temp_path ${work}/nginx-tmp; scgi_temp_path ${work}/nginx-tmp;
  server { listen 127.0.0.1:${port}; root ${root}; add_header Cache-Control "public, max-age=31536000"; } }
`,
  );
  mkdirSync(join(work, 'nginx-tmp'), { recursive: true });
  return ['nginx', ['-c', conf, '-e', 'stderr']];
}

async function coldStart() {
  const fixture = join(OUT, 'pack-fixture');
  const cap = join(OUT, 'pack-work/bench-pack-1.0.0.cap');
  if (!existsSync(cap)) return console.log('\ncold start skipped: run the pack bench first (npm run bench -- pack)');
  console.log('\n== serve: cold start of a 10,000-file / 200 MB package ==');
  const work = join(OUT, 'serve-cold');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const extracted = join(work, 'extracted');
  shell(`unzip -q ${cap} -d ${extracted} && cd ${extracted} && find . -type f ! -name security.json -print0 | xargs -0 sha256sum > ${work}/SUMS`);
  const floor = best(2, () => shell(`unzip -tq ${cap} && cd ${extracted} && sha256sum -c --quiet ${work}/SUMS`));
  const probe = '/d7/blob-7.bin';
  const startOurs = async (source) => {
    const port = await freePort();
    return launch('node', [CLI, 'reactor', 'serve', source, '--port', String(port)], `http://127.0.0.1:${port}${probe}`);
  };
  let withSecurity;
  for (let i = 0; i < 2; i++) {
    const run = await startOurs(cap);
    if (!withSecurity || run.seconds < withSecurity.seconds) withSecurity = { seconds: run.seconds };
    if (i === 1) {
      const port = Number(/--port (\d+)/.exec(run.child.spawnargs.join(' '))[1]);
      wrk(`http://127.0.0.1:${port}${probe}`);
      withSecurity.rss = run.rssMb();
    }
    await run.stop();
  }
  console.log(`floor: unzip -t + sha256sum -c ${fmt(floor.seconds)} s; reactor with security.json: first 200 after ${fmt(withSecurity.seconds)} s`);
  console.log(`cold start with security.json: ${verdict(withSecurity.seconds / floor.seconds, 1.0)}`);

  const bare = join(work, 'bench-pack-nosec.cap');
  shell(`cd ${fixture} && zip -q -r -1 ${bare} .`);
  let ours;
  let express;
  for (let i = 0; i < 2; i++) {
    const run = await startOurs(bare);
    if (!ours || run.seconds < ours) ours = run.seconds;
    await run.stop();
    const port = await freePort();
    const server = await launch('node', [join(ROOT, 'bench/servers/express-static.js'), join(fixture, 'content'), String(port)], `http://127.0.0.1:${port}${probe}`);
    if (!express || server.seconds < express) express = server.seconds;
    await server.stop();
  }
  console.log(`without security.json: reactor ${fmt(ours)} s, bare express.static ${fmt(express)} s: ${verdict(ours / express, 2)}`);
  console.log(`resident memory while serving the 200 MB package: ${fmt(withSecurity.rss, 0)} MB (target < 150 MB)`);
}

/** A 20 KB stylesheet as sites ship them: many short rules, repetitive, compressible. */
function stylesheet() {
  const rules = [];
  for (let i = 0; rules.join('').length < 20 * 1024; i++) {
    const hue = (i * 37) % 360;
    rules.push(`.card-${i} > .title, .card-${i}:hover .title {\n  color: hsl(${hue}, 60%, 35%);\n  padding: ${i % 7}px ${(i * 3) % 11}px;\n  border-bottom: 1px solid hsl(${hue}, 30%, 85%);\n}\n`);
  }
  return rules.join('').slice(0, 20 * 1024);
}

const GZIP = { 'Accept-Encoding': 'gzip' };
/** What browsers send: brotli is preferred when its copy is ready. */
const BROTLI = { 'Accept-Encoding': 'gzip, deflate, br' };

/** One raw GET: the bytes as sent, not decoded. */
function rawGet(url, headers) {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

/** Polls until `url` answers in `coding` (a background copy is being made): the raw answer. */
async function answeredIn(url, headers, coding) {
  for (let i = 0; i < 200; i++) {
    const answer = await rawGet(url, headers);
    if (answer.headers['content-encoding'] === coding) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} never answered ${coding}`);
}

/**
 * gzip straight from the archive: a deflated entry's raw bytes in a gzip member; brotli
 * from the copy the background pass made after load. The identity, gzip and brotli runs
 * take turns and each keeps its best, as the logging cost does.
 */
async function compressedFromArchive() {
  const site = join(OUT, 'serve-gzip-site');
  rmSync(site, { recursive: true, force: true });
  mkdirSync(join(site, 'content'), { recursive: true });
  writeFileSync(join(site, 'metadata.json'), JSON.stringify({ name: 'bench-gzip', version: '1.0.0', description: 'benchmark', guid: 'pkg://bench/gzip', uuid: '123e4567-e89b-42d3-a456-426614174002' }));
  const css = stylesheet();
  writeFileSync(join(site, 'content/style.css'), css);
  const work = join(OUT, 'serve-gzip-work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync('node', [CLI, 'package', 'pack', site, '-o', work]);
  const cap = join(work, 'bench-gzip-1.0.0.cap');
  console.log(`\n== serve: gzip and brotli from the archive (style.css ${css.length} B; wrk -H 'Accept-Encoding: gzip', then 'gzip, deflate, br') ==`);
  const ROUNDS = 3;
  const best = { identity: 0, gzip: 0, br: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/style.css`;
    const server = await launch('node', [CLI, 'reactor', 'serve', cap, '--port', String(port)], url);
    try {
      if (round === 0) {
        const identity = await rawGet(url, {});
        const gzip = await rawGet(url, GZIP);
        if (gzip.headers['content-encoding'] !== 'gzip') throw new Error('the reactor did not answer gzip');
        const same = gunzipSync(gzip.body).equals(identity.body) && identity.body.toString() === css;
        console.log(`gzip answer ${gzip.body.length} B / identity ${identity.body.length} B: ${verdict(gzip.body.length / identity.body.length, 0.4)}; gunzips to the same bytes: ${same ? 'yes' : 'NO'}`);
        const br = await answeredIn(url, BROTLI, 'br');
        const decoded = brotliDecompressSync(br.body).equals(identity.body);
        console.log(`brotli answer (background pass) ${br.body.length} B / identity ${identity.body.length} B: ${fmt(br.body.length / identity.body.length)}x, ${fmt(br.body.length / gzip.body.length)}x the gzip answer; decodes to the same bytes: ${decoded ? 'yes' : 'NO'}`);
      } else await answeredIn(url, BROTLI, 'br');
      warmUp([url]);
      warmUp([url], GZIP);
      warmUp([url], BROTLI);
      best.identity = Math.max(best.identity, wrk(url));
      best.gzip = Math.max(best.gzip, wrk(url, GZIP));
      best.br = Math.max(best.br, wrk(url, BROTLI));
    } finally {
      await server.stop();
    }
  }
  console.log(`reactor, best of ${ROUNDS}: identity ${fmt(best.identity, 0)} req/s, gzip ${fmt(best.gzip, 0)} req/s: gzip / identity ${verdict(best.gzip / best.identity, 0.85, false)}`);
  console.log(`reactor, best of ${ROUNDS}: brotli ${fmt(best.br, 0)} req/s: br / identity ${verdict(best.br / best.identity, 0.85, false)}`);
  await compressedFromDirectory(site, css);
  if (!existsSync(join(ROOT, 'node_modules/compression'))) {
    console.log('express 5 + compression skipped: the compression package is not in node_modules');
    return;
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/style.css`;
  const server = await launch('node', [join(ROOT, 'bench/servers/express-compression.js'), join(site, 'content'), String(port)], url);
  try {
    const answer = await rawGet(url, GZIP);
    warmUp([url], GZIP);
    const rate = wrk(url, GZIP);
    console.log(`express 5 + compression: gzip ${fmt(rate, 0)} req/s (${answer.body.length} B, compressed per request); reactor gzip / express ${fmt(best.gzip / rate)}x`);
  } finally {
    await server.stop();
  }
}

/**
 * The same stylesheet from a directory source: compressed once on the first gzip answer
 * and kept; a directory may change while served, so each request checks the file's
 * version (a stat) whatever the coding.
 */
async function compressedFromDirectory(site, css) {
  const ROUNDS = 3;
  const best = { identity: 0, gzip: 0 };
  let sizes;
  for (let round = 0; round < ROUNDS; round++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/style.css`;
    const server = await launch('node', [CLI, 'reactor', 'serve', site, '--port', String(port)], url);
    try {
      const gzip = await answeredIn(url, GZIP, 'gzip');
      if (!gunzipSync(gzip.body).equals(Buffer.from(css))) throw new Error('the directory gzip answer does not gunzip to the file');
      sizes ??= `gzip answer ${gzip.body.length} B / identity ${css.length} B: ${fmt(gzip.body.length / css.length)}x`;
      warmUp([url]);
      warmUp([url], GZIP);
      best.identity = Math.max(best.identity, wrk(url));
      best.gzip = Math.max(best.gzip, wrk(url, GZIP));
    } finally {
      await server.stop();
    }
  }
  console.log(`directory source: ${sizes}; best of ${ROUNDS}: identity ${fmt(best.identity, 0)} req/s, gzip ${fmt(best.gzip, 0)} req/s: gzip / identity ${verdict(best.gzip / best.identity, 0.85, false)}`);
}

export async function run() {
  if (!has('wrk')) return console.log('serve bench skipped: wrk is not installed (apt-get install wrk)');
  await throughput();
  await compressedFromArchive();
  if (!process.env.BENCH_SKIP_COLD) await coldStart();
}
