import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqlJsTableReader } from '../../src/adapters/sqlite/sqljs-table-reader.js';
import { ConfigParseError, ConfigValidationError, DatasetUnavailableError } from '../../src/domain/errors.js';
import { temporaryDirectory } from '../support/paths.js';

// Databases are made by the real sqlite3 shell, so the reader is checked against files
// SQLite itself wrote rather than ones sql.js round-tripped.
let work: ReturnType<typeof temporaryDirectory>;
beforeEach(() => {
  work = temporaryDirectory('cap-sqlite-');
});
afterEach(() => work.remove());

function database(sql: string, name = 'data.sqlite'): { path: string; bytes: Uint8Array } {
  const path = join(work.path, name);
  execFileSync('sqlite3', [path, sql]);
  return { path, bytes: readFileSync(path) };
}

const sqlite = (path: string, sql: string) => execFileSync('sqlite3', [path, sql], { encoding: 'utf8' }).trim();

const reader = new SqlJsTableReader();

describe('SqlJsTableReader', () => {
  it('reads rows as objects in rowid order with integer, real, text, NULL and blob columns', async () => {
    const { bytes } = database(`
      CREATE TABLE items (id INTEGER, price REAL, name TEXT, note TEXT, data BLOB);
      INSERT INTO items (rowid, id, price, name, note, data) VALUES (3, 30, 0.5, 'third', NULL, X'');
      INSERT INTO items (rowid, id, price, name, note, data) VALUES (1, 10, 1.25, 'first', 'é ✓', X'00FF10');
      INSERT INTO items (rowid, id, price, name, note, data) VALUES (2, -20, -3.0, 'second', '', NULL);
    `);
    await expect(reader.readTable(bytes, 'items', 'data/items.sqlite')).resolves.toEqual([
      { id: 10, price: 1.25, name: 'first', note: 'é ✓', data: Buffer.from([0x00, 0xff, 0x10]).toString('base64') },
      { id: -20, price: -3, name: 'second', note: '', data: null },
      { id: 30, price: 0.5, name: 'third', note: null, data: '' },
    ]);
  });

  it('keeps rowid order even when SQLite would rather scan a covering index', async () => {
    // The planner statistics say the index is far smaller than the table, so a bare
    // SELECT * walks the index (a, b, c); rowid order is c, b, a.
    const { bytes } = database(`
      CREATE TABLE items (name TEXT);
      CREATE INDEX by_name ON items (name);
      INSERT INTO items VALUES ('c'), ('b'), ('a');
      ANALYZE;
      UPDATE sqlite_stat1 SET stat = stat || ' sz=1' WHERE idx = 'by_name';
    `);
    const rows = await reader.readTable(bytes, 'items', 'i.sqlite');
    expect(rows.map((row) => row.name)).toEqual(['c', 'b', 'a']);
  });

  it('keeps integers a double cannot hold exact, as decimal strings', async () => {
    const { bytes } = database(`
      CREATE TABLE n (v INTEGER);
      INSERT INTO n VALUES (9007199254740991), (9007199254740993), (-9223372036854775808), (9223372036854775807);
    `);
    const rows = await reader.readTable(bytes, 'n', 'n.sqlite');
    expect(rows.map((row) => row.v)).toEqual([9007199254740991, '9007199254740993', '-9223372036854775808', '9223372036854775807']);
  });

  it('reads a table whose name holds a double quote and a space', async () => {
    const { bytes } = database(`
      CREATE TABLE "we""ird name" ("a b" TEXT, "q""c" INTEGER);
      INSERT INTO "we""ird name" VALUES ('x', 1), ('y', 2);
    `);
    await expect(reader.readTable(bytes, 'we"ird name', 'w.sqlite')).resolves.toEqual([
      { 'a b': 'x', 'q"c': 1 },
      { 'a b': 'y', 'q"c': 2 },
    ]);
  });

  it('refuses a table name that would be SQL injection and leaves the database intact', async () => {
    const { path, bytes } = database(`
      CREATE TABLE items (id INTEGER);
      INSERT INTO items VALUES (1), (2);
    `);
    const error = await reader.readTable(bytes, 'x; DROP TABLE items; --', 'i.sqlite').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as ConfigValidationError).issues).toEqual(['no table "x; DROP TABLE items; --" in the database (tables: items)']);
    expect(Buffer.from(readFileSync(path)).equals(Buffer.from(bytes))).toBe(true);
    expect(sqlite(path, 'SELECT count(*) FROM items')).toBe('2');
    await expect(reader.readTable(bytes, 'items', 'i.sqlite')).resolves.toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('reads a table literally named like an injection as just a name', async () => {
    const { path, bytes } = database(`
      CREATE TABLE items (id INTEGER);
      INSERT INTO items VALUES (1);
      CREATE TABLE "items""; DROP TABLE items; --" (v TEXT);
      INSERT INTO "items""; DROP TABLE items; --" VALUES ('kept');
    `);
    await expect(reader.readTable(bytes, 'items"; DROP TABLE items; --', 'i.sqlite')).resolves.toEqual([{ v: 'kept' }]);
    await expect(reader.readTable(bytes, 'items', 'i.sqlite')).resolves.toEqual([{ id: 1 }]);
    expect(sqlite(path, 'SELECT count(*) FROM items')).toBe('1');
  });

  it('names the file and lists the tables and views when the table is missing', async () => {
    const { bytes } = database(`
      CREATE TABLE zebra (id INTEGER PRIMARY KEY AUTOINCREMENT);
      CREATE TABLE apple (id INTEGER);
      CREATE VIEW mango AS SELECT id FROM apple;
      INSERT INTO zebra DEFAULT VALUES;
    `);
    const error = await reader.readTable(bytes, 'pear', 'data/fruit.sqlite').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as ConfigValidationError).file).toBe('data/fruit.sqlite');
    // sqlite_sequence, SQLite's own bookkeeping for AUTOINCREMENT, is not offered.
    expect((error as ConfigValidationError).issues).toEqual(['no table "pear" in the database (tables: apple, mango, zebra)']);
  });

  it('matches the table name exactly, not as a pattern or case-insensitively', async () => {
    const { bytes } = database('CREATE TABLE items (id INTEGER);');
    await expect(reader.readTable(bytes, 'item%', 'i.sqlite')).rejects.toBeInstanceOf(ConfigValidationError);
    await expect(reader.readTable(bytes, 'ITEMS', 'i.sqlite')).rejects.toBeInstanceOf(ConfigValidationError);
  });

  it('says "none" when the database has no tables', async () => {
    await expect(reader.readTable(new Uint8Array(), 'items', 'empty.sqlite')).rejects.toThrow('empty.sqlite: no table "items" in the database (tables: none)');
  });

  it('refuses random bytes as not a SQLite database', async () => {
    const error = await reader.readTable(randomBytes(4096), 'items', 'data/random.sqlite').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigParseError);
    expect(error).toMatchObject({ file: 'data/random.sqlite', detail: 'not a SQLite database' });
  });

  it('refuses a text file as not a SQLite database', async () => {
    const text = new TextEncoder().encode('id,name\n1,first\n2,second\n'.repeat(40));
    await expect(reader.readTable(text, 'items', 'items.csv')).rejects.toThrow(new ConfigParseError('items.csv', 'not a SQLite database'));
  });

  it('refuses a damaged database as not a SQLite database', async () => {
    const { bytes } = database(`
      CREATE TABLE items (id INTEGER, name TEXT);
      INSERT INTO items VALUES (1, 'a'), (2, 'b');
    `);
    // Keep the header page, overwrite the table's page.
    const damaged = Buffer.from(bytes);
    damaged.fill(7, 4096);
    const error = await reader.readTable(damaged, 'items', 'd.sqlite').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigParseError);
    expect((error as ConfigParseError).detail).toMatch(/^not a SQLite database/);
  });

  it('refuses a view of a dropped table, and a mangled schema, with typed errors naming the file', async () => {
    // What SQLite reports here is the package's fault, not the reader's: never an internal error.
    const { bytes: orphan } = database(`
      CREATE TABLE gone (x INTEGER);
      CREATE VIEW orphan AS SELECT x FROM gone;
      DROP TABLE gone;
    `);
    const error = await reader.readTable(orphan, 'orphan', 'data/o.sqlite').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as ConfigValidationError).issues).toEqual(['table "orphan" cannot be read: no such table: main.gone']);
    const mangled = database('CREATE TABLE items (id INTEGER);', 'mangled.sqlite');
    sqlite(mangled.path, "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE items (id' WHERE name = 'items';");
    const parse = await reader.readTable(readFileSync(mangled.path), 'items', 'data/m.sqlite').catch((e: unknown) => e);
    expect(parse).toBeInstanceOf(ConfigParseError);
    expect(parse).toMatchObject({ file: 'data/m.sqlite', detail: expect.stringMatching(/^not a SQLite database SQLite can open \(malformed database schema/) });
  });

  it('stops reading a view that yields rows without end, or one row larger than memory allows', async () => {
    const { bytes } = database(`
      CREATE VIEW endless AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x FROM n;
      CREATE VIEW huge AS SELECT zeroblob(200000000) AS b;
    `);
    const bounded = new SqlJsTableReader(undefined, 64 * 1024);
    const error = await bounded.readTable(bytes, 'endless', 'data/e.sqlite').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as ConfigValidationError).issues).toEqual([expect.stringMatching(/^view "endless" holds more than the 0\.0625 MiB of rows \(as JSON\) a dataset may \(refused after \d+ rows\)$/)]);
    // SQLite's own heap is bounded too: the blob is never built, let alone copied out.
    await expect(bounded.readTable(bytes, 'huge', 'data/e.sqlite')).rejects.toThrow(new ConfigValidationError('data/e.sqlite', ['table "huge" cannot be read: out of memory']));
  });

  it('reads an empty table as no rows', async () => {
    const { bytes } = database('CREATE TABLE items (id INTEGER, name TEXT);');
    await expect(reader.readTable(bytes, 'items', 'i.sqlite')).resolves.toEqual([]);
  });

  it('reads a view, which has no rowid', async () => {
    const { bytes } = database(`
      CREATE TABLE items (id INTEGER, name TEXT, hidden INTEGER);
      INSERT INTO items VALUES (1, 'a', 0), (2, 'b', 1), (3, 'c', 0);
      CREATE VIEW visible AS SELECT id, upper(name) AS name FROM items WHERE hidden = 0 ORDER BY id;
    `);
    await expect(reader.readTable(bytes, 'visible', 'v.sqlite')).resolves.toEqual([
      { id: 1, name: 'A' },
      { id: 3, name: 'C' },
    ]);
  });

  it('reads a WITHOUT ROWID table in primary-key order', async () => {
    const { bytes } = database(`
      CREATE TABLE codes (code TEXT PRIMARY KEY, label TEXT) WITHOUT ROWID;
      INSERT INTO codes VALUES ('b', 'bee'), ('a', 'ay');
    `);
    await expect(reader.readTable(bytes, 'codes', 'c.sqlite')).resolves.toEqual([
      { code: 'a', label: 'ay' },
      { code: 'b', label: 'bee' },
    ]);
  });

  it('says SQLite datasets need sql.js when it cannot be loaded', async () => {
    const missing = new SqlJsTableReader(() => Promise.reject(new Error("Cannot find package 'sql.js'")));
    const { bytes } = database('CREATE TABLE items (id INTEGER);');
    const error = await missing.readTable(bytes, 'items', 'i.sqlite').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatasetUnavailableError);
    expect((error as Error).message).toMatch(/SQLite datasets need the sql\.js package \(npm install sql\.js\)/);
  });
});
