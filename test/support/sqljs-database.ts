import initSqlJs from 'sql.js';
import type { SqliteRow } from '../contracts/sqlite-reader.contract.js';

const sql = await initSqlJs();

/** The bytes of a SQLite database holding these tables, rows inserted in the order given (the SqliteReader contract's `database`). */
export async function sqlJsDatabase(tables: Record<string, SqliteRow[]>): Promise<Uint8Array> {
  const db = new sql.Database();
  try {
    for (const [table, rows] of Object.entries(tables)) {
      const columns = Object.keys(rows[0]!);
      db.run(`CREATE TABLE "${table}" (${columns.map((column) => `"${column}"`).join(', ')})`);
      for (const row of rows) db.run(`INSERT INTO "${table}" VALUES (${columns.map(() => '?').join(', ')})`, columns.map((column) => row[column]!));
    }
    return db.export();
  } finally {
    db.close();
  }
}
