// The dataset REST API: POST and GET-by-id requests per second on 1,000 and 100,000
// existing items, our reactor beside json-server 0.17 on the same data and the same
// connections; and, on 1,000 items, the collection GET beside the same bytes served
// as a static file by the same reactor. Everything runs in one process tree, on loopback.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, OUT, ROOT, fmt, has, verdict , freePort, launch } from './lib.js';

const DURATION = process.env.BENCH_DURATION ?? '8s';
// json-server handles one request at a time and rewrites its whole file on each write,
// so many connections would only queue in front of it; both servers get the same count.
const CONNECTIONS = process.env.BENCH_CONNECTIONS ?? '4';
// BENCH_DURATION and BENCH_CONNECTIONS tune a run.

const SIZES = [1_000, 100_000];
const SCRIPT = join(ROOT, 'bench/lua/items.lua');
export const JSON_SERVER = join(ROOT, 'node_modules/json-server/lib/cli/bin.js');
export const COLLECTION = '/api/v1/data/items';
const REACTOR_QUERY = 'active=true&sort=-score&limit=20';
const JSON_SERVER_QUERY = 'active=true&_sort=score&_order=desc&_limit=20';
const WORDS = 'package content reactor layer route dataset manifest signature archive verify serve mount overlay schema version registry'.split(' ');

/**
 * Requests per second. With a script, every response outside 2xx is counted by it;
 * without one, wrk's own count of 4xx and 5xx is used. Either way, more than 1% of
 * failed requests (or any socket error) makes the measurement worthless, so it throws.
 */
export function wrk(url, scriptArgs, duration = DURATION, connections = CONNECTIONS) {
  const args = ['-t1', `-c${connections}`, `-d${duration}`, '--timeout', '10s'];
  if (scriptArgs) args.push('-s', SCRIPT, url, '--', ...scriptArgs);
  else args.push(url);
  const output = execFileSync('wrk', args, { encoding: 'utf8' });
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)[1]);
  const total = Number(/(\d+) requests in/.exec(output)[1]);
  const checked = /__DATA_BENCH__ requests=\d+ non2xx=(\d+) sample=(\d+)/.exec(output);
  const failed = checked ? Number(checked[1]) : Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  if (total === 0) throw new Error(`wrk completed no request to ${url}:\n${output}`);
  if (failed > total * 0.01 || socketErrors > 0) {
    throw new Error(`wrk ${url}: ${failed} of ${total} responses were not 2xx${checked && failed > 0 ? ` (first: ${checked[2]})` : ''}, ${socketErrors} socket errors:\n${output}`);
  }
  return { rate, total, failed };
}

function itemOf(n) {
  let text = '';
  for (let i = n; text.length < 200; i = (Math.imul(i, 1103515245) + 12345) & 0x7fffffff) text += WORDS[(i >>> 8) % WORDS.length] + ' ';
  return { id: `item-${n}`, title: `Item ${n}: ${WORDS[n % WORDS.length]} ${WORDS[(n >> 4) % WORDS.length]}`, body: text.slice(0, 200), tags: [WORDS[n % 7], WORDS[7 + (n % 9)]], n, active: n % 3 === 0, score: Math.imul(n, 7919) % 1000 };
}

/** A package directory with `size` items, and the same items as a json-server db. */
export function makeFixture(size) {
  // v2: items carry `active` and `score`, which the query measurement filters and sorts on.
  const pkg = join(OUT, `data-fixture-v2-${size}`);
  const db = join(OUT, `data-fixture-v2-${size}.db.json`);
  if (existsSync(join(pkg, 'content/index.html')) && existsSync(db)) return { pkg, db };
  rmSync(pkg, { recursive: true, force: true });
  mkdirSync(join(pkg, 'data'), { recursive: true });
  mkdirSync(join(pkg, 'content'), { recursive: true });
  writeFileSync(join(pkg, 'metadata.json'), JSON.stringify({ name: `bench-data-${size}`, version: '1.0.0', description: 'benchmark', guid: `pkg://bench/data-${size}`, uuid: '00000000-0000-0000-0000-000000000000' }));
  writeFileSync(join(pkg, 'storage.json'), JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }));
  const items = Array.from({ length: size }, (_, i) => itemOf(i + 1));
  const body = JSON.stringify(items);
  writeFileSync(join(pkg, 'data/items.json'), body);
  // The collection's bytes as a static file: what a collection GET is measured against.
  if (size === SIZES[0]) writeFileSync(join(pkg, 'content/items-copy.json'), body);
  writeFileSync(db, JSON.stringify({ items }, null, 2));
  writeFileSync(join(pkg, 'content/index.html'), '<!doctype html><title>bench</title>\n');
  return { pkg, db };
}

/** Starts a server on a fresh copy of its state, runs `measure` against it, always stops it. */
async function withServer(name, size, fixture, work, measure) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server;
  if (name === 'reactor') {
    const workdir = join(work, `reactor-${size}`);
    rmSync(workdir, { recursive: true, force: true });
    mkdirSync(workdir, { recursive: true });
    server = await launch('node', [CLI, 'reactor', 'serve', fixture.pkg, '--port', String(port), '--workdir', workdir], `${base}${COLLECTION}/item-1`);
  } else {
    // json-server rewrites its db on every write, so each run starts from a copy.
    const db = join(work, `json-server-${size}.json`);
    copyFileSync(fixture.db, db);
    server = await launch('node', [JSON_SERVER, db, '--host', '127.0.0.1', '--port', String(port), '--quiet'], `${base}/items/item-1`);
  }
  try {
    const measured = await measure(base, name === 'reactor' ? COLLECTION : '/items');
    return { startup: server.seconds, rss: server.rssMb(), ...measured };
  } finally {
    await server.stop();
  }
}

export async function run() {
  if (!has('wrk')) return console.log('data bench skipped: wrk is not installed (apt-get install wrk)');
  if (!existsSync(JSON_SERVER)) return console.log('data bench skipped: json-server is not installed (npm install)');
  const work = join(OUT, 'data-work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  console.log(`\n== data: requests per second (wrk -t1 -c${CONNECTIONS} -d${DURATION}, the same for both servers) ==`);
  const results = {};
  for (const size of SIZES) {
    const fixture = makeFixture(size);
    const megabytes = readFileSync(join(fixture.pkg, 'data/items.json')).length / 1e6;
    results[size] = {};
    for (const name of ['reactor', 'json-server']) {
      results[size][name] = await withServer(name, size, fixture, work, async (base, collection) => {
        const measured = {};
        const getById = ['get', collection, String(size)];
        // A fresh process runs its first requests unoptimized: a second of reads first, so
        // that whichever endpoint is measured first is not the one that pays for it.
        if (name === 'reactor' && size === SIZES[0]) for (const path of [collection, '/items-copy.json']) wrk(`${base}${path}`, undefined, '1s');
        wrk(`${base}${collection}`, getById, '1s');
        // Reads come first, while the dataset is still exactly the fixture.
        if (name === 'reactor' && size === SIZES[0]) {
          measured.collection = wrk(`${base}${collection}`);
          measured.static = wrk(`${base}/items-copy.json`);
        }
        measured.get = wrk(`${base}${collection}`, getById);
        if (size === SIZES[1]) {
          const query = name === 'reactor' ? REACTOR_QUERY : JSON_SERVER_QUERY;
          measured.queryIds = await idsOf(`${base}${collection}?${query}`);
          measured.query = wrk(`${base}${collection}?${query}`);
        }
        measured.post = wrk(`${base}${collection}`, ['post', collection, randomBytes(6).toString('hex')]);
        return measured;
      });
      const r = results[size][name];
      const failures = `non-2xx: POST ${r.post.failed}/${r.post.total}, GET ${r.get.failed}/${r.get.total}`;
      console.log(`${String(size).padStart(7)} items (${fmt(megabytes, 1)} MB)  ${name.padEnd(12)} POST ${fmt(r.post.rate, 0).padStart(7)} req/s   GET by id ${fmt(r.get.rate, 0).padStart(7)} req/s   started in ${fmt(r.startup)} s   (${failures})`);
    }
  }

  const [small, large] = SIZES;
  const ours = (size) => results[size].reactor;
  const theirs = (size) => results[size]['json-server'];
  const { collection, static: file } = ours(small);
  const bytes = readFileSync(join(OUT, `data-fixture-v2-${small}/content/items-copy.json`)).length;
  console.log(`${small} items: collection GET ${fmt(collection.rate, 0)} req/s, the same ${bytes} B as a static file ${fmt(file.rate, 0)} req/s`);
  console.log(`POST at ${large} items: reactor / json-server ${verdict(ours(large).post.rate / theirs(large).post.rate, 100, false)}`);
  console.log(`POST at ${small} items: reactor / json-server ${verdict(ours(small).post.rate / theirs(small).post.rate, 3, false)}`);
  console.log(`reactor POST at ${large} / at ${small} items: ${verdict(ours(large).post.rate / ours(small).post.rate, 0.8, false)}`);
  console.log(`collection GET / static file at ${small} items: ${verdict(collection.rate / file.rate, 0.5, false)}`);
  const sameIds = JSON.stringify(ours(large).queryIds) === JSON.stringify(theirs(large).queryIds);
  console.log(`query at ${large} items: reactor ?${REACTOR_QUERY} ${fmt(ours(large).query.rate, 0)} req/s, json-server ?${JSON_SERVER_QUERY} ${fmt(theirs(large).query.rate, 0)} req/s; ${sameIds ? 'the same 20 ids in the same order' : `DIFFERENT ids: ${ours(large).queryIds.join(',')} vs ${theirs(large).queryIds.join(',')}`}`);
  console.log(`query, reactor / json-server: ${verdict(ours(large).query.rate / theirs(large).query.rate, 100, false)}`);
  console.log(`resident memory at ${large} items after the run: reactor ${fmt(ours(large).rss, 0)} MB, json-server ${fmt(theirs(large).rss, 0)} MB`);
  console.log(`GET by id, reactor / json-server: ${SIZES.map((size) => `${fmt(ours(size).get.rate / theirs(size).get.rate)}x at ${size} items`).join(', ')} (no target)`);
}

async function idsOf(url) {
  const answer = await fetch(url);
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()).map((item) => item.id);
}
