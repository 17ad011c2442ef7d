import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SqlJsTableReader } from '../../src/adapters/sqlite/sqljs-table-reader.js';
import { WorkerThreadSqliteReader } from '../../src/adapters/sqlite/worker-thread-sqlite-reader.js';
import type { SqliteReader } from '../../src/application/ports/sqlite-reader.js';
import { ConfigParseError, ConfigValidationError } from '../../src/domain/errors.js';
import { describeSqliteReaderContract } from '../contracts/sqlite-reader.contract.js';
import { ROOT, temporaryDirectory } from '../support/paths.js';
import { sqlJsDatabase } from '../support/sqljs-database.js';

// The built worker entry (npm test builds first).
const BUILT = pathToFileURL(join(ROOT, 'dist/sqlite-worker.js'));

/** A fallback that must not be asked: the reads are the thread's. */
const never: SqliteReader = { readTable: () => Promise.reject(new Error('the fallback should not read')) };

describeSqliteReaderContract('WorkerThreadSqliteReader (the built worker)', () => ({ reader: new WorkerThreadSqliteReader(never, BUILT), database: sqlJsDatabase }));

let work: ReturnType<typeof temporaryDirectory>;
beforeEach(() => {
  work = temporaryDirectory('cap-sqlite-thread-');
});
afterEach(() => work.remove());

function database(sqlText: string): Uint8Array {
  const path = join(work.path, 'data.sqlite');
  execFileSync('sqlite3', [path, sqlText]);
  return readFileSync(path);
}

describe('WorkerThreadSqliteReader', () => {
  it('gives up a view whose query never ends, with the event loop free meanwhile, and reads the next table on a new thread', async () => {
    // sql.js cannot interrupt this: in process it held the event loop for ever.
    const bytes = database(`
      CREATE VIEW endless AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) AS c FROM n;
      CREATE TABLE items (id INTEGER, name TEXT);
      INSERT INTO items VALUES (1, 'a');
    `);
    const reader = new WorkerThreadSqliteReader(never, BUILT, 500);
    let turns = 0;
    const ticker = setInterval(() => turns++, 20);
    try {
      const error = await reader.readTable(bytes, 'endless', 'data/e.sqlite').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigValidationError);
      expect((error as ConfigValidationError).issues).toEqual(['reading table "endless" took longer than 0.5 s and was given up (is it a view whose query never ends?)']);
      expect(turns).toBeGreaterThan(5);
    } finally {
      clearInterval(ticker);
    }
    await expect(reader.readTable(bytes, 'items', 'data/e.sqlite')).resolves.toEqual([{ id: 1, name: 'a' }]);
  });

  it('hands back the reader\'s typed errors, and takes reads in turn', async () => {
    const reader = new WorkerThreadSqliteReader(never, BUILT);
    const bytes = database('CREATE TABLE items (id INTEGER); INSERT INTO items VALUES (7);');
    const [parse, rows, missing] = await Promise.all([
      reader.readTable(new TextEncoder().encode('not a database, '.repeat(64)), 'items', 'data/t.sqlite').catch((e: unknown) => e),
      reader.readTable(bytes, 'items', 'data/i.sqlite'),
      reader.readTable(bytes, 'nope', 'data/i.sqlite').catch((e: unknown) => e),
    ]);
    expect(parse).toEqual(new ConfigParseError('data/t.sqlite', 'not a SQLite database'));
    expect(parse).toBeInstanceOf(ConfigParseError);
    expect(rows).toEqual([{ id: 7 }]);
    expect(missing).toBeInstanceOf(ConfigValidationError);
    expect((missing as ConfigValidationError).issues).toEqual(['no table "nope" in the database (tables: items)']);
  });

  it('reads in process when there is no built worker entry', async () => {
    const reader = new WorkerThreadSqliteReader(new SqlJsTableReader(), pathToFileURL(join(work.path, 'no-such-worker.js')));
    await expect(reader.readTable(database('CREATE TABLE t (v TEXT); INSERT INTO t VALUES (\'x\');'), 't', 't.sqlite')).resolves.toEqual([{ v: 'x' }]);
  });
});
