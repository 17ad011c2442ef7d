// Dataset POST requests per second at 1,000 items on the two overlay stores, in one run:
// the workdir's files (the default), a PostgreSQL database (`--overlay postgres://...`,
// as several reactors share it), and json-server 0.17 beside them on the same items.
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CLI, OUT, fmt, freePort, has, launch, verdict } from './lib.js';
import { COLLECTION, JSON_SERVER, makeFixture, wrk } from './data.bench.js';
import { postgresAvailable, startPostgres } from './postgres.js';

const SIZE = 1_000;
// The data bench's 4 connections, and 32: the PostgreSQL store commits the writes that
// arrive during a commit together, so its rate grows with concurrency; json-server
// answers one request at a time whatever the count.
const CONNECTIONS = [4, 32];

/** POST requests per second at each connection count, on one server started for them. */
async function postRates(command, args, probe, collection) {
  const server = await launch(command, args, probe);
  const base = probe.replace(/\/[^/]+$/, '');
  try {
    // The first requests of a fresh process run unoptimized.
    wrk(base, undefined, '1s');
    return CONNECTIONS.map((connections) => wrk(base, ['post', collection, randomBytes(6).toString('hex')], undefined, connections).rate);
  } finally {
    await server.stop();
  }
}

export async function run() {
  if (!has('wrk')) return console.log('overlay bench skipped: wrk is not installed (apt-get install wrk)');
  if (!postgresAvailable()) return console.log('overlay bench skipped: PostgreSQL\'s server is not installed (apt-get install postgresql)');
  if (!existsSync(JSON_SERVER)) return console.log('overlay bench skipped: json-server is not installed (npm install)');
  const fixture = makeFixture(SIZE);
  const work = join(OUT, 'overlay-work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const postgres = await startPostgres();
  try {
    console.log(`\n== overlay stores: dataset POST at ${SIZE} items, requests per second ==`);
    const rates = {};
    const reactor = async (name, extra) => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      rates[name] = await postRates('node', [CLI, 'reactor', 'serve', fixture.pkg, '--port', String(port), '--workdir', join(work, name), ...extra], `${base}${COLLECTION}/item-1`, COLLECTION);
    };
    await reactor('files', []);
    await reactor('postgres', ['--overlay', postgres.createDatabase()]);
    const db = join(work, 'json-server.json');
    copyFileSync(fixture.db, db);
    const port = await freePort();
    rates.jsonServer = await postRates('node', [JSON_SERVER, db, '--host', '127.0.0.1', '--port', String(port), '--quiet'], `http://127.0.0.1:${port}/items/item-1`, '/items');
    CONNECTIONS.forEach((connections, i) => {
      console.log(`${connections} connections: reactor, file store ${fmt(rates.files[i], 0)} req/s; reactor, PostgreSQL store ${fmt(rates.postgres[i], 0)} req/s; json-server ${fmt(rates.jsonServer[i], 0)} req/s`);
      console.log(`${connections} connections: POST, PostgreSQL / file store: ${verdict(rates.postgres[i] / rates.files[i], 0.3, false)}`);
      console.log(`${connections} connections: POST, PostgreSQL / json-server: ${verdict(rates.postgres[i] / rates.jsonServer[i], 20, false)}`);
    });
  } finally {
    await postgres.stop();
  }
}
