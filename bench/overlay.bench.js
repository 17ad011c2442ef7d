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

async function postRate(command, args, probe, collection) {
  const server = await launch(command, args, probe);
  try {
    // The first requests of a fresh process run unoptimized.
    wrk(probe.replace(/\/[^/]+$/, ''), undefined, '1s');
    return wrk(probe.replace(/\/[^/]+$/, ''), ['post', collection, randomBytes(6).toString('hex')]).rate;
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
      rates[name] = await postRate('node', [CLI, 'reactor', 'serve', fixture.pkg, '--port', String(port), '--workdir', join(work, name), ...extra], `${base}${COLLECTION}/item-1`, COLLECTION);
    };
    await reactor('files', []);
    await reactor('postgres', ['--overlay', postgres.createDatabase()]);
    const db = join(work, 'json-server.json');
    copyFileSync(fixture.db, db);
    const port = await freePort();
    rates.jsonServer = await postRate('node', [JSON_SERVER, db, '--host', '127.0.0.1', '--port', String(port), '--quiet'], `http://127.0.0.1:${port}/items/item-1`, '/items');
    console.log(`reactor, file store: ${fmt(rates.files, 0)} req/s; reactor, PostgreSQL store: ${fmt(rates.postgres, 0)} req/s; json-server: ${fmt(rates.jsonServer, 0)} req/s`);
    console.log(`POST, PostgreSQL / file store: ${verdict(rates.postgres / rates.files, 0.3, false)}`);
    console.log(`POST, PostgreSQL / json-server: ${verdict(rates.postgres / rates.jsonServer, 20, false)}`);
  } finally {
    await postgres.stop();
  }
}
