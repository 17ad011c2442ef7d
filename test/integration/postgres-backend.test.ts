import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import pg from 'pg';
import { PostgresDatabase } from '../../src/adapters/postgres/postgres-database.js';
import { PostgresOverlayStore } from '../../src/adapters/postgres/postgres-overlay-store.js';
import { APPEND_FUNCTION, APPLIED_CHANNEL, CHANGES_CHANNEL, LISTENER_NAME, REVOCATIONS_CHANNEL, SCHEMA_VERSION } from '../../src/adapters/postgres/postgres-schema.js';
import { PostgresSessionRevocationStore } from '../../src/adapters/postgres/postgres-session-revocations.js';
import { OverlayError } from '../../src/domain/errors.js';
import { LOG_START } from '../../src/domain/data/log-place.js';
import { describeOverlayStoreContract } from '../contracts/overlay-store.contract.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(() => postgres?.stop());

describeOverlayStoreContract(
  'PostgresOverlayStore',
  async () => {
    const url = postgres.url(await postgres.createDatabase());
    const store = new PostgresOverlayStore(await PostgresDatabase.connect(url));
    return { store, workdir: '/unused', url, dispose: () => store.close() };
  },
  {
    // Another reactor: its own connections to the same database.
    elsewhere: async (subject) => {
      const store = new PostgresOverlayStore(await PostgresDatabase.connect((subject as { url?: string }).url!));
      return { store, dispose: () => store.close() };
    },
    wholeLinesOnly: true,
  },
);

describe('PostgresSessionRevocationStore', () => {
  const HOUR = 3600_000;
  const NOW = Date.parse('2026-06-01T00:00:00Z');

  it('ends a session on every reactor of the database, durably, and keeps a revocation only until the session would have expired', async () => {
    const url = postgres.url(await postgres.createDatabase());
    const databases = await Promise.all([PostgresDatabase.connect(url), PostgresDatabase.connect(url)]);
    try {
      const [here, there] = await Promise.all(databases.map((database) => new PostgresSessionRevocationStore(database, () => NOW).open()));
      await here!.revoke('session-a', NOW + HOUR);
      expect(here!.has('session-a')).toBe(true);
      for (let waited = 0; !there!.has('session-a') && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(there!.has('session-a')).toBe(true);
      expect(there!.has('session-b')).toBe(false);
      await there!.revoke('session-old', NOW - 1);
      // A reactor started later reads them from the database; one that expired is gone.
      const later = await PostgresDatabase.connect(url);
      try {
        const opened = await new PostgresSessionRevocationStore(later, () => NOW).open();
        expect(opened.has('session-a')).toBe(true);
        expect(opened.has('session-old')).toBe(false);
      } finally {
        await later.close();
      }
    } finally {
      await Promise.all(databases.map((database) => database.close()));
    }
  });

  it('lets one of two reactors claim an id, however close together their claims come, and neither claim it again', async () => {
    const url = postgres.url(await postgres.createDatabase());
    const databases = await Promise.all([PostgresDatabase.connect(url), PostgresDatabase.connect(url)]);
    try {
      const stores = await Promise.all(databases.map((database) => new PostgresSessionRevocationStore(database, () => NOW).open()));
      for (const id of ['state-a', 'state-b', 'state-c']) {
        const verdicts = await Promise.all(stores.map((store) => store.claim(id, NOW + HOUR)));
        expect(verdicts.filter(Boolean)).toHaveLength(1);
        expect(await Promise.all(stores.map((store) => store.claim(id, NOW + HOUR)))).toEqual([false, false]);
      }
    } finally {
      await Promise.all(databases.map((database) => database.close()));
    }
  });
});

describe('PostgresDatabase', () => {
  it('migrates once when several reactors start at the same moment, and refuses a database a newer reactor migrated', async () => {
    const url = postgres.url(await postgres.createDatabase());
    const started = await Promise.all(Array.from({ length: 6 }, () => PostgresDatabase.connect(url)));
    try {
      const { rows } = await started[0]!.query<{ version: number }>('SELECT version FROM pkg_schema');
      expect(rows).toEqual([{ version: SCHEMA_VERSION }]);
      await started[0]!.query('UPDATE pkg_schema SET version = $1', [SCHEMA_VERSION + 1]);
      await expect(PostgresDatabase.connect(url)).rejects.toThrow(/schema version \d+, and this reactor knows versions up to \d+: upgrade this reactor/);
    } finally {
      await Promise.all(started.map((database) => database.close()));
    }
  });

  it('brings a database a reactor of schema version 1 made to this version: the append function appears, and logs written before read back and grow', async () => {
    const url = postgres.url(await postgres.createDatabase());
    const dataset = "it's café";
    const first = new PostgresOverlayStore(await PostgresDatabase.connect(url));
    try {
      const log = await (await first.open('', { path: '/', packageName: 'older' })).openLog(dataset, 0);
      await log.append(() => new TextEncoder().encode('{"op":"delete","id":"a"}\n'));
    } finally {
      await first.close();
    }
    // What version 1 left: the tables and their rows, no function.
    const older = new pg.Client({ connectionString: url });
    await older.connect();
    try {
      await older.query(`DROP FUNCTION ${APPEND_FUNCTION}; UPDATE pkg_schema SET version = 1`);
    } finally {
      await older.end();
    }
    const database = await PostgresDatabase.connect(url);
    const store = new PostgresOverlayStore(database);
    try {
      expect((await database.query<{ version: number }>('SELECT version FROM pkg_schema')).rows).toEqual([{ version: SCHEMA_VERSION }]);
      const overlay = await store.open('', { path: '/', packageName: 'older' });
      const log = await overlay.openLog(dataset, '{"op":"delete","id":"a"}\n'.length);
      await log.append(() => new TextEncoder().encode('{"op":"delete","id":"b"}\n'));
      expect(new TextDecoder().decode(await overlay.readLog(dataset))).toBe('{"op":"delete","id":"a"}\n{"op":"delete","id":"b"}\n');
    } finally {
      await store.close();
    }
  });

  it('reads a log written anew since a read of it (its rows deleted and others inserted) whole again, not on from the old line', async () => {
    const url = postgres.url(await postgres.createDatabase());
    const store = new PostgresOverlayStore(await PostgresDatabase.connect(url));
    try {
      const overlay = await store.open('', { path: '/', packageName: 'anew' });
      const log = await overlay.openLog('items', 0);
      await log.append(() => new TextEncoder().encode('{"op":"delete","id":"1"}\n'));
      await log.close();
      const read = await overlay.readLogFrom('items', LOG_START);
      expect(read.place.mark).toEqual(expect.any(String));
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      try {
        await other.query(`DELETE FROM pkg_overlay_operations; INSERT INTO pkg_overlay_operations (overlay, dataset, line) SELECT id, 'items', l FROM pkg_overlays, unnest(ARRAY['{"op":"delete","id":"7"}', '{"op":"delete","id":"8"}']) AS l`);
      } finally {
        await other.end();
      }
      const again = await overlay.readLogFrom('items', read.place);
      expect([new TextDecoder().decode(again.bytes), again.whole]).toEqual(['{"op":"delete","id":"7"}\n{"op":"delete","id":"8"}\n', true]);
      // And on from there, a tail again.
      expect(await overlay.readLogFrom('items', again.place)).toMatchObject({ whole: false, place: again.place });
    } finally {
      await store.close();
    }
  });

  it('names the database without its password when it cannot be reached', async () => {
    const error = await PostgresDatabase.connect(`postgres://pkg:hunter2@127.0.0.1:${postgres.port}/no_such_database`).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(OverlayError);
    expect((error as Error).message).toContain('postgres://***@127.0.0.1:');
    expect((error as Error).message).not.toContain('hunter2');
  });
});

describe('PostgresOverlayStore, written with any text', () => {
  it('reads back exactly the lines it was given, whatever characters they hold', async () => {
    const url = postgres.url(await postgres.createDatabase());
    const store = new PostgresOverlayStore(await PostgresDatabase.connect(url));
    try {
      const overlay = await store.open('', { path: '/', packageName: 'any-text' });
      let round = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 4 }), async (texts) => {
          // One dataset per run: a log's lines are JSON, as the datasets write them.
          const dataset = `d${round++}`;
          const lines = texts.map((text) => JSON.stringify({ op: 'delete', id: 'x', text }) + '\n').join('');
          const log = await overlay.openLog(dataset, 0);
          await log.append(() => new TextEncoder().encode(lines));
          await log.close();
          expect(new TextDecoder().decode(await overlay.readLog(dataset))).toBe(lines);
        }),
        { numRuns: 60 },
      );
    } finally {
      await store.close();
    }
  });
});

describe('PostgresOverlayStore, appending while others append', () => {
  it('decides again with what another reactor appended during each try, and after three tries decides under the lock, appending once after them all', async () => {
    const url = postgres.url(await postgres.createDatabase());
    const store = new PostgresOverlayStore(await PostgresDatabase.connect(url));
    // The other reactor: two connections that take turns holding the log's lock, so each try of this one waits for it, and a third that appends meanwhile and watches the locks.
    const others = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    const watcher = new pg.Client({ connectionString: url });
    try {
      await Promise.all([...others, watcher].map((client) => client.connect()));
      const pids = await Promise.all(others.map(async (client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
      const overlay = await store.open('', { path: '/', packageName: 'contended' });
      const log = await overlay.openLog('items', 0);
      const { rows } = await watcher.query<{ id: string }>('SELECT id FROM pkg_overlays');
      const key = [`pkg-overlay-log:${rows[0]!.id}:items`];
      const waiters = async () => (await watcher.query<{ pid: number }>("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows.map((row) => row.pid);
      const until = async (waiting: (pids: number[]) => boolean) => {
        while (!waiting(await waiters())) await new Promise((resolve) => setTimeout(resolve, 5));
      };
      let holder = 0;
      let held = others[holder]!.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', key);
      // Held before the first try: on a busy machine that try could otherwise take the lock first and never wait.
      await held;
      let turns = Promise.resolve();
      const seen: string[] = [];
      await log.append((elsewhere) => {
        seen.push(new TextDecoder().decode(elsewhere));
        const turn = seen.length;
        if (turn <= 3) {
          turns = turns.then(async () => {
            const [now, next] = [others[holder]!, others[1 - holder]!];
            await held;
            // This reactor's try waits for the lock: the other appends, then hands the lock over to it, queueing behind it once more for the next try.
            await until((pids_) => pids_.some((pid) => !pids.includes(pid)));
            await watcher.query('INSERT INTO pkg_overlay_operations (overlay, dataset, line) VALUES ($1, $2, $3)', [rows[0]!.id, 'items', `other ${turn}`]);
            if (turn < 3) {
              held = next.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', key);
              await until((pids_) => pids_.includes(pids[1 - holder]!));
              holder = 1 - holder;
            }
            await now.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', key);
          });
        }
        return new TextEncoder().encode(`mine after ${turn - 1}\n`);
      });
      await turns;
      expect(seen).toEqual(['', 'other 1\n', 'other 2\n', 'other 3\n']);
      expect(new TextDecoder().decode(await overlay.readLog('items'))).toBe('other 1\nother 2\nother 3\nmine after 3\n');
      expect(new TextDecoder().decode(await log.catchUp())).toBe('');
    } finally {
      await Promise.all([...others, watcher].map((client) => client.end()));
      await store.close();
    }
  });
});

describe('PostgresOverlayStore, with other reactors listening', () => {
  /** Another reactor as the database sees it: a listening connection under a reactor's name, which says it applied a change only when told to. */
  async function standIn(url: string) {
    const client = new pg.Client({ connectionString: url, application_name: `${LISTENER_NAME}stand-in` });
    const heard: Array<{ o: string; n: number }> = [];
    const revoked: string[] = [];
    client.on('notification', ({ channel, payload }) => (channel === CHANGES_CHANNEL ? heard.push(JSON.parse(payload!)) : revoked.push(payload!)));
    await client.connect();
    await client.query(`LISTEN ${CHANGES_CHANNEL}; LISTEN ${REVOCATIONS_CHANNEL}`);
    return {
      heard,
      revoked,
      appliedRevocation: (id: string) => client.query('SELECT pg_notify($1, $2)', [APPLIED_CHANNEL, JSON.stringify({ f: 'stand-in', a: [`session ${id}`] })]),
      /** The `index`th notice heard, once it has come. */
      notice: async (index: number) => {
        for (let waited = 0; heard.length <= index && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
        return heard[index]!;
      },
      applied: (notice: { o: string; n: number }) => client.query('SELECT pg_notify($1, $2)', [APPLIED_CHANNEL, JSON.stringify({ f: 'stand-in', a: [`overlay ${notice.o} ${notice.n}`] })]),
      leave: () => client.end(),
    };
  }

  const settledWithin = (promise: Promise<unknown>, ms: number) => Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
  const bytes = (text: string) => new TextEncoder().encode(text);

  /** A database of its own with a stand-in reactor on it, and a reactor's database there (closed after, and the stand-in gone). */
  async function withStandIn(test: (other: Awaited<ReturnType<typeof standIn>>, database: PostgresDatabase) => Promise<void>): Promise<void> {
    const url = postgres.url(await postgres.createDatabase());
    const other = await standIn(url);
    const database = await PostgresDatabase.connect(url);
    try {
      await test(other, database);
    } finally {
      await database.close();
      await other.leave().catch(() => undefined);
    }
  }

  /** The overlay a reactor on `database` writes content to. */
  const overlayOn = (database: PostgresDatabase) => new PostgresOverlayStore(database).open('/unused', { path: '/', packageName: 'site' });

  it('acknowledges a write only once every reactor listening said it applied it', () =>
    withStandIn(async (other, database) => {
      const writing = (await overlayOn(database)).writeContent('notes/a.txt', bytes('a'));
      // Committed and heard there, but not yet said to be applied: still waiting, past a check that the other is still there.
      expect(await settledWithin(writing, 400)).toBe(false);
      expect(other.heard).toHaveLength(1);
      await other.applied(await other.notice(0));
      expect(await settledWithin(writing, 1000)).toBe(true);
    }));

  it('stops waiting for a reactor that is gone', () =>
    withStandIn(async (other, database) => {
      const writing = (await overlayOn(database)).writeContent('notes/a.txt', bytes('a'));
      expect(await settledWithin(writing, 300)).toBe(false);
      await other.leave();
      // Well within the longest wait for one that stays and never answers.
      expect(await settledWithin(writing, 1000)).toBe(true);
    }));

  it('waits for a reactor that never answers once, for a bounded time, and not again until it is heard from', () =>
    withStandIn(async (other, database) => {
      const overlay = await overlayOn(database);
      const started = Date.now();
      await overlay.writeContent('notes/a.txt', bytes('a'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect(await settledWithin(overlay.writeContent('notes/b.txt', bytes('b')), 300)).toBe(true);
      // Heard from again: waited for again.
      await other.applied(await other.notice(1));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const third = overlay.writeContent('notes/c.txt', bytes('c'));
      expect(await settledWithin(third, 300)).toBe(false);
      await other.applied(await other.notice(2));
      expect(await settledWithin(third, 1000)).toBe(true);
    }), 15_000);

  it('passes over what others say on its channels that no reactor would (NOTIFY by hand), and goes on applying the writes of the others', async () => {
    const url = postgres.url(await postgres.createDatabase());
    const writer = await PostgresDatabase.connect(url);
    const reader = await PostgresDatabase.connect(url);
    const revocations = await new PostgresSessionRevocationStore(reader).open();
    const said: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((text: string) => (said.push(String(text)), true)) as typeof process.stderr.write;
    const client = new pg.Client({ connectionString: url });
    try {
      // The reader follows the writer's overlay, as a second reactor on the database does.
      await overlayOn(reader);
      await client.connect();
      for (const channel of [CHANGES_CHANNEL, APPLIED_CHANNEL, REVOCATIONS_CHANNEL])
        for (const payload of ['null', '[]', '1', '"x"', '{}', '{"o": "z", "n": 1, "k": 1}', '{"o": "z", "n": 1, "k": 1, "c": null}', '{"f": "z", "a": 5}', '{"f": "z", "a": [1, {}]}', 'not json'])
          await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
      const writing = (await overlayOn(writer)).writeContent('notes/a.txt', bytes('a'));
      expect(await settledWithin(writing, 1500)).toBe(true);
      expect(revocations.has('session-y')).toBe(false);
    } finally {
      process.stderr.write = write;
      await client.end();
      await writer.close();
      await reader.close();
    }
    expect(said.join('')).not.toMatch(/\n\s+at /);
  });

  it('ends a session on logout only once every reactor listening has heard it, the reactor logging out at once', () =>
    withStandIn(async (other, database) => {
      const revocations = await new PostgresSessionRevocationStore(database).open();
      const revoking = revocations.revoke('session-x', Date.now() + 3600_000);
      expect(await settledWithin(revoking, 400)).toBe(false);
      expect(revocations.has('session-x')).toBe(true);
      expect(other.revoked).toEqual(['session-x']);
      await other.appliedRevocation('session-x');
      expect(await settledWithin(revoking, 1000)).toBe(true);
    }));
});
