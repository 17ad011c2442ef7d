import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SITE, ROOT, temporaryDirectory } from '../support/paths.js';
import { freePort, runNginx } from '../support/nginx-registry.js';
import { PASSWORD_ROLE, startPostgres, type TestPostgres } from '../support/postgres.js';
import pg from 'pg';
import { runPkgAsync } from '../support/run-cli.js';
import { failingServe, startServe, type ServeProcess } from '../support/serve-process.js';

/**
 * The deployment README.md's "Running several reactors" describes, run for real: a
 * PostgreSQL of its own, two reactor processes with workdirs of their own on it, and nginx
 * with the README's configuration balancing between them.
 */
jest.setTimeout(120_000);

const work = temporaryDirectory('cap-several-');
let postgres: TestPostgres;
let url: string;
const reactors: ServeProcess[] = [];
let nginx: { stop(): Promise<void> } | undefined;
let balancer: string;
let ports: [number, number];

/** The nginx block of the README section, with its ports swapped for free ones. */
function readmeNginx(listen: number, upstreams: [number, number]): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Running several reactors'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md: no nginx block in "Running several reactors"');
  return block.replace('127.0.0.1:8864', `127.0.0.1:${listen}`).replace('127.0.0.1:8865', `127.0.0.1:${upstreams[0]}`).replace('127.0.0.1:8866', `127.0.0.1:${upstreams[1]}`);
}

function startReactor(index: 0 | 1): Promise<ServeProcess> {
  return startServe([EXAMPLE_SITE, '--workdir', join(work.path, `reactor-${index}`), '--overlay', url], { port: ports[index] }).then((started) => (reactors[index] = started));
}

const article = (id: string) => ({ id, title: `Article ${id}`, body: 'written through the balancer' });

async function post(base: string, id: string): Promise<number> {
  const response = await fetch(`${base}/api/v1/data/articles`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(article(id)) });
  await response.arrayBuffer();
  return response.status;
}

async function listed(base: string): Promise<Set<string>> {
  const response = await fetch(`${base}/api/v1/data/articles?limit=100000`);
  expect(response.status).toBe(200);
  return new Set(((await response.json()) as Array<{ id: string }>).map((item) => item.id));
}

/** Runs `tasks` with at most `width` in flight. */
async function inParallel<T>(width: number, tasks: Array<() => Promise<T>>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]!();
      }
    }),
  );
  return results;
}

beforeAll(async () => {
  postgres = await startPostgres();
  url = postgres.url(await postgres.createDatabase());
  ports = [await freePort(), await freePort()];
  await Promise.all([startReactor(0), startReactor(1)]);
  const listen = await freePort();
  nginx = await runNginx(readmeNginx(listen, ports), work.path, listen);
  balancer = `http://127.0.0.1:${listen}`;
});

afterAll(async () => {
  await nginx?.stop();
  await Promise.all(reactors.map((reactor) => reactor?.stop('SIGKILL')));
  await postgres?.stop();
  work.remove();
});

describe('two reactors on one PostgreSQL behind nginx', () => {
  it('names the shared store in the banner, without credentials', () => {
    expect(reactors[0]!.stdout()).toMatch(/^Overlays: PostgreSQL at postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/test_\d+$/m);
  });

  it('takes 500 concurrent POSTs through nginx on both reactors, and each lists exactly those 500', async () => {
    const ids = Array.from({ length: 500 }, (_, i) => `through-${i}`);
    const statuses = await inParallel(50, ids.map((id) => () => post(balancer, id)));
    expect(statuses.filter((status) => status === 201)).toHaveLength(500);
    // nginx alternated: each reactor answered writes.
    for (const reactor of reactors) expect(reactor.stdout().match(/POST \/api\/v1\/data\/articles -> 201/g)?.length ?? 0).toBeGreaterThan(100);
    for (const reactor of reactors) {
      const seen = await listed(reactor.url);
      expect(ids.filter((id) => !seen.has(id))).toEqual([]);
      expect([...seen].filter((id) => id.startsWith('through-'))).toHaveLength(500);
    }
  });

  it('serves a content PUT on one reactor from the other on the next request, and a DELETE there is a 404 here', async () => {
    const [a, b] = reactors.map((reactor) => reactor.url);
    expect((await fetch(`${a}/notes/shared.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'from A' })).status).toBe(200);
    // Acknowledged once the other reactor applied it: the next request there finds it, no retrying.
    const there = await fetch(`${b}/notes/shared.txt`);
    expect(there.status).toBe(200);
    expect(await there.text()).toBe('from A');
    expect((await fetch(`${b}/notes/shared.txt`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${a}/notes/shared.txt`)).status).toBe(404);
  });

  it('loses no acknowledged write when one reactor is SIGKILLed under write load', async () => {
    const acknowledged: string[] = [];
    let stop = false;
    let sent = 0;
    const writers = Array.from({ length: 16 }, async (_, writer) => {
      for (let i = 0; !stop; i++) {
        const id = `load-${writer}-${i}`;
        sent++;
        const status = await post(balancer, id).catch(() => 0);
        if (status === 201) acknowledged.push(id);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 700));
    await reactors[0]!.stop('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 700));
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(50);
    expect(sent).toBeGreaterThan(acknowledged.length - 1);
    const survivor = await listed(reactors[1]!.url);
    expect(acknowledged.filter((id) => !survivor.has(id))).toEqual([]);
    // Started again on its workdir and the database, the killed reactor lists them all too.
    await startReactor(0);
    const restarted = await listed(reactors[0]!.url);
    expect(acknowledged.filter((id) => !restarted.has(id))).toEqual([]);
    expect(restarted).toEqual(survivor);
  });
});

describe('pkg reactor overlay copy', () => {
  it('moves one reactor\'s file overlays into an empty database, where two reactors serve them, and back into a workdir', async () => {
    const single = join(work.path, 'single');
    const alone = await startServe([EXAMPLE_SITE, '--workdir', single]);
    try {
      expect(await post(alone.url, 'kept-on-move')).toBe(201);
      expect((await fetch(`${alone.url}/notes/moved.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'moved' })).status).toBe(200);
      expect((await fetch(`${alone.url}/index.html`, { method: 'DELETE' })).status).toBe(204);
    } finally {
      await alone.stop();
    }
    const database = postgres.url(await postgres.createDatabase());
    // A typo'd path, or a folder that is no workdir: refused, neither made nor swept.
    for (const notAWorkdir of [join(work.path, 'typo'), EXAMPLE_SITE]) {
      const refused = await runPkgAsync(['reactor', 'overlay', 'copy', notAWorkdir, database]);
      expect([refused.status, refused.stderr]).toEqual([1, expect.stringMatching(/^error: OverlayError: .* is not a reactor workdir: it holds neither overlays\/ nor decrypted\//)]);
    }
    expect(existsSync(join(work.path, 'typo'))).toBe(false);
    expect(existsSync(join(EXAMPLE_SITE, 'decrypted'))).toBe(false);
    const into = await runPkgAsync(['reactor', 'overlay', 'copy', single, database.replace('pkg@', 'pkg:secret@')]);
    expect(into.stderr).toBe('');
    expect(into.stdout).toContain('/ (example-site): 1 file, 1 tombstone, articles 1 operation');
    expect(into.stdout).toMatch(/Copied 1 overlay from .*single to postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/test_\d+/);
    const again = await runPkgAsync(['reactor', 'overlay', 'copy', single, database]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toMatch(/OverlayError: .* already holds writes of mount \/ \(example-site\); nothing was copied/);
    const shared = await startServe([EXAMPLE_SITE, '--workdir', join(work.path, 'shared'), '--overlay', database]);
    try {
      expect((await listed(shared.url)).has('kept-on-move')).toBe(true);
      expect(await (await fetch(`${shared.url}/notes/moved.txt`)).text()).toBe('moved');
      expect((await fetch(`${shared.url}/index.html`)).status).toBe(404);
      expect(await post(shared.url, 'written-on-postgres')).toBe(201);
    } finally {
      await shared.stop();
    }
    const back = join(work.path, 'back');
    expect((await runPkgAsync(['reactor', 'overlay', 'copy', database, back])).status).toBe(0);
    const returned = await startServe([EXAMPLE_SITE, '--workdir', back]);
    try {
      const items = await listed(returned.url);
      expect(items.has('kept-on-move') && items.has('written-on-postgres')).toBe(true);
      expect((await fetch(`${returned.url}/index.html`)).status).toBe(404);
    } finally {
      await returned.stop();
    }
  });
});

describe('--overlay, refused', () => {
  it('names what it takes for another kind of URL, and the database without its password when it cannot be used', async () => {
    const mysql = await failingServe([EXAMPLE_SITE, '--overlay', 'mysql://root:hunter2@127.0.0.1/site']);
    expect(mysql.code).toBe(2);
    expect(mysql.stderr).toContain('error: UsageError: --overlay mysql://***@127.0.0.1/site: a postgres://user@host:port/database URL is expected');
    const malformed = await failingServe([EXAMPLE_SITE, '--overlay', 'postgres://pkg@127.0.0.1:99999/site']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('error: UsageError: --overlay postgres://***@127.0.0.1:99999/site: a postgres://user@host:port/database URL is expected');
    const port = await freePort();
    const unreachable = await failingServe([EXAMPLE_SITE, '--overlay', `postgres://pkg:hunter2@127.0.0.1:${port}/site`]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`error: OverlayError: the overlay database postgres://***@127.0.0.1:${port}/site cannot be reached: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(unreachable.stderr + unreachable.stdout).not.toContain('hunter2');
    // A server that asks a password the URL does not give: said so, and the process ends (it stayed, holding the connection, deaf to SIGTERM).
    const admin = new pg.Client({ connectionString: postgres.url('postgres') });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${PASSWORD_ROLE} LOGIN PASSWORD 'hunter3'`);
    } finally {
      await admin.end();
    }
    const database = postgres.url(await postgres.createDatabase()).replace('//pkg@', `//${PASSWORD_ROLE}@`);
    const passwordless = await failingServe([EXAMPLE_SITE, '--overlay', database]);
    expect(passwordless.code).toBe(1);
    expect(passwordless.stderr).toContain('asks for a password, and neither the URL (postgres://user:password@...) nor PGPASSWORD gives one');
    const wrong = await failingServe([EXAMPLE_SITE, '--overlay', database.replace(`${PASSWORD_ROLE}@`, `${PASSWORD_ROLE}:hunter2@`)]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/refused the login: password authentication failed/);
    expect(wrong.stderr).not.toContain('hunter2');
  }, 30_000);

  it('is taken from PKG_OVERLAY when the flag is absent', async () => {
    const database = postgres.url(await postgres.createDatabase());
    const fromEnv = await startServe([EXAMPLE_SITE, '--workdir', join(work.path, 'from-env')], { env: { PKG_OVERLAY: database } });
    try {
      expect(fromEnv.stdout()).toMatch(/^Overlays: PostgreSQL at postgres:\/\/\*\*\*@127\.0\.0\.1:\d+\/test_\d+$/m);
      expect(await post(fromEnv.url, 'through-the-environment')).toBe(201);
    } finally {
      await fromEnv.stop();
    }
    const fromFlag = await startServe([EXAMPLE_SITE, '--workdir', join(work.path, 'from-flag'), '--overlay', database]);
    try {
      expect((await listed(fromFlag.url)).has('through-the-environment')).toBe(true);
    } finally {
      await fromFlag.stop();
    }
  });
});
