import { SqlJsTableReader } from '../../src/adapters/sqlite/sqljs-table-reader.js';
import { describeSqliteReaderContract } from '../contracts/sqlite-reader.contract.js';
import { MemorySqliteReader, memoryDatabase } from '../fakes/memory-sqlite-reader.js';
import { sqlJsDatabase } from '../support/sqljs-database.js';

describeSqliteReaderContract('MemorySqliteReader (fake)', () => ({ reader: new MemorySqliteReader(), database: async (tables) => memoryDatabase(tables) }));

describeSqliteReaderContract('SqlJsTableReader', () => ({ reader: new SqlJsTableReader(), database: sqlJsDatabase }));
