import type { SqliteReader } from '../../src/application/ports/sqlite-reader.js';
import { ConfigParseError, ConfigValidationError } from '../../src/domain/errors.js';

type Row = Record<string, string | number | null>;
const MAGIC = 'MEMORY-SQLITE 1\n';

/** The bytes of a "database" MemorySqliteReader reads: tables of rows, in rowid order. */
export function memoryDatabase(tables: Record<string, Row[]>): Uint8Array {
  return new TextEncoder().encode(MAGIC + JSON.stringify(tables));
}

/**
 * Reads the databases `memoryDatabase` writes, as SqlJsTableReader reads SQLite files:
 * a table's rows as JSON objects in order, ConfigValidationError for a table that is not
 * there, ConfigParseError for bytes that are no database (empty bytes are an empty
 * database, as for SQLite). Kept honest by test/contracts/sqlite-reader.contract.ts.
 */
export class MemorySqliteReader implements SqliteReader {
  async readTable(database: Uint8Array, table: string, file: string): Promise<Array<Record<string, unknown>>> {
    const tables = database.length === 0 ? {} : parse(database, file);
    const rows = Object.hasOwn(tables, table) ? tables[table] : undefined;
    if (!rows) {
      const names = Object.keys(tables).sort();
      throw new ConfigValidationError(file, [`no table "${table}" in the database (tables: ${names.length > 0 ? names.join(', ') : 'none'})`]);
    }
    return rows.map((row) => ({ ...row }));
  }
}

function parse(database: Uint8Array, file: string): Record<string, Row[]> {
  const text = new TextDecoder().decode(database);
  if (!text.startsWith(MAGIC)) throw new ConfigParseError(file, 'not a SQLite database');
  return JSON.parse(text.slice(MAGIC.length)) as Record<string, Row[]>;
}
