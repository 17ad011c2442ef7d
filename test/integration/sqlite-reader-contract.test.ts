import initSqlJs from 'sql.js';
import { SqlJsTableReader } from '../../src/adapters/sqlite/sqljs-table-reader.js';
import { describeSqliteReaderContract, type SqliteRow } from '../contracts/sqlite-reader.contract.js';
import { MemorySqliteReader, memoryDatabase } from '../fakes/memory-sqlite-reader.js';

describeSqliteReaderContract('MemorySqliteReader (fake)', () => ({ reader: new MemorySqliteReader(), database: async (tables) => memoryDatabase(tables) }));

const sql = await initSqlJs();
describeSqliteReaderContract('SqlJsTableReader', () => ({
  reader: new SqlJsTableReader(),
  database: async (tables: Record<string, SqliteRow[]>) => {
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
  },
}));
