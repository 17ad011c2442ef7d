import { createRequire } from 'node:module';
import type { Database, SqlJsConfig, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import { MAX_DATA_DOCUMENT_BYTES } from '../../application/package/package-reader.js';
import type { SqliteReader } from '../../application/ports/sqlite-reader.js';
import { ConfigParseError, ConfigValidationError, DatasetUnavailableError, PackageError } from '../../domain/errors.js';

type InitSqlJs = (config?: SqlJsConfig) => Promise<SqlJsStatic>;
type SqlJsImporter = () => Promise<unknown>;

// @types/sql.js lags the library: `get` has taken `{ useBigInt }` since sql.js 1.8.
type BigIntStatement = Statement & { get(params: null, config: { useBigInt: true }): Array<SqlValue | bigint> };

const importSqlJs: SqlJsImporter = () => import('sql.js');

// Each initSqlJs() call compiles and instantiates the WASM module again, so every
// reader that uses the same importer shares one engine.
const engines = new WeakMap<SqlJsImporter, Promise<SqlJsStatic>>();

/**
 * Reads SQLite datasets with sql.js, SQLite compiled to WebAssembly: it installs from the
 * npm registry alone, with no native build and no binary download (better-sqlite3 fetches
 * prebuilt binaries from GitHub), and runs on Node 20 (node:sqlite needs Node 22.5).
 * sql.js is imported on first use so packages without SQLite datasets never pay for it.
 */
export class SqlJsTableReader implements SqliteReader {
  /**
   * `importer` exists so tests can stand in for a missing sql.js. `maxBytes` bounds the
   * rows read, as JSON, as a JSON data file is bounded: a view is a query the package
   * author wrote, and one can yield rows without end.
   */
  constructor(
    private readonly importer: SqlJsImporter = importSqlJs,
    private readonly maxBytes = MAX_DATA_DOCUMENT_BYTES,
  ) {}

  async readTable(database: Uint8Array, table: string, file: string): Promise<Array<Record<string, unknown>>> {
    const sql = await this.engine();
    let db: Database | undefined;
    try {
      db = new sql.Database(database);
      // SQLite's own memory (a row of zeroblob(1e9), a sort) fails as "out of memory" past this.
      db.exec(`PRAGMA hard_heap_limit = ${this.maxBytes + SQLITE_WORKING_BYTES}`);
      const kind = objectKind(db, table);
      if (kind === undefined) {
        const names = listObjects(db);
        throw new ConfigValidationError(file, [`no table "${table}" in the database (tables: ${names.length > 0 ? names.join(', ') : 'none'})`]);
      }
      return readRows(db, table, kind, this.maxBytes, file);
    } catch (error) {
      throw asPackageError(error, table, file);
    } finally {
      db?.close();
    }
  }

  private engine(): Promise<SqlJsStatic> {
    let engine = engines.get(this.importer);
    if (engine === undefined) {
      engine = loadEngine(this.importer);
      engines.set(this.importer, engine);
      // A failed load is not cached, so installing sql.js takes effect without a restart.
      engine.catch(() => engines.delete(this.importer));
    }
    return engine;
  }
}

/** SQLite's page cache and sorter, beside the rows themselves. */
const SQLITE_WORKING_BYTES = 64 * 1024 * 1024;

async function loadEngine(importer: SqlJsImporter): Promise<SqlJsStatic> {
  try {
    const mod = (await importer()) as { default?: unknown };
    // sql.js is CommonJS: under nodenext its module.exports arrives as `default`.
    const initSqlJs = mod.default ?? mod;
    if (typeof initSqlJs !== 'function') throw new Error('the sql.js module exports no initialiser');
    // Resolved from this file so the path holds from source and from dist/pkg.js alike;
    // sql.js's own lookup would search beside the bundle, where the wasm is not.
    const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
    return await (initSqlJs as InitSqlJs)({ locateFile: () => wasm });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatasetUnavailableError(`SQLite datasets need the sql.js package (npm install sql.js): ${reason}`, { cause: error });
  }
}

function objectKind(db: Database, name: string): 'table' | 'view' | undefined {
  const found = db.exec("SELECT type FROM sqlite_master WHERE type IN ('table','view') AND name = ?", [name]);
  const kind = found[0]?.values[0]?.[0];
  return kind === 'table' || kind === 'view' ? kind : undefined;
}

function listObjects(db: Database): string[] {
  // sqlite_sequence and sqlite_stat* are SQLite's bookkeeping, not datasets anyone names.
  const found = db.exec("SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
  return (found[0]?.values ?? []).map((row) => String(row[0]));
}

function readRows(db: Database, table: string, kind: 'table' | 'view', maxBytes: number, file: string): Array<Record<string, unknown>> {
  // An identifier cannot be a bound parameter; it is quoted, and it already matched sqlite_master.
  const from = `SELECT * FROM "${table.replaceAll('"', '""')}"`;
  const statement = prepareOrdered(db, from, kind) as BigIntStatement;
  try {
    const columns = statement.getColumnNames();
    const rows: Array<Record<string, unknown>> = [];
    let bytes = 2;
    while (statement.step()) {
      const values = statement.get(null, { useBigInt: true });
      // fromEntries defines own properties, so a column named __proto__ stays a column.
      const row = Object.fromEntries(columns.map((column, i) => [column, toJson(values[i] ?? null)]));
      bytes += jsonLength(row) + 1;
      if (bytes > maxBytes) throw new ConfigValidationError(file, [`${kind} "${table}" holds more than the ${maxBytes / 1024 / 1024} MiB of rows (as JSON) a dataset may (refused after ${rows.length} rows)`]);
      rows.push(row);
    }
    return rows;
  } finally {
    statement.free();
  }
}

function prepareOrdered(db: Database, from: string, kind: 'table' | 'view'): Statement {
  // Views and WITHOUT ROWID tables have no rowid; they keep SQLite's natural order.
  if (kind === 'view') return db.prepare(from);
  try {
    return db.prepare(`${from} ORDER BY rowid`);
  } catch (error) {
    if (error instanceof Error && /no such column: rowid/i.test(error.message)) return db.prepare(from);
    throw error;
  }
}

function toJson(value: SqlValue | bigint): unknown {
  if (typeof value === 'bigint') {
    // Integers are read exactly; only those a double cannot hold become decimal strings.
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  return value;
}

/** A row's JSON length, reckoned from its keys and values (escapes aside). */
function jsonLength(row: Record<string, unknown>): number {
  let length = 2;
  for (const [key, value] of Object.entries(row)) length += key.length + 4 + (typeof value === 'string' ? value.length + 2 : String(value).length);
  return length;
}

function asPackageError(error: unknown, table: string, file: string): unknown {
  if (error instanceof PackageError || !(error instanceof Error)) return error;
  // sql.js opens lazily, so foreign bytes surface as SQLITE_NOTADB on the first query.
  if (/file is not a database/i.test(error.message)) return new ConfigParseError(file, 'not a SQLite database');
  if (/database disk image is malformed/i.test(error.message)) return new ConfigParseError(file, 'not a SQLite database (the database disk image is malformed)');
  if (/malformed database schema/i.test(error.message)) return new ConfigParseError(file, `not a SQLite database SQLite can open (${error.message})`);
  // What else SQLite says is about the package's database too: a view of a dropped
  // table, a function sql.js lacks, a row past the memory allowed.
  return new ConfigValidationError(file, [`table "${table}" cannot be read: ${error.message}`]);
}
