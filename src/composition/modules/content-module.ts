import { ContainerModule } from 'inversify';
import { LazyReferenceScanner } from '../../adapters/content/lazy-reference-scanner.js';
import { AjvSchemaValidator } from '../../adapters/schema/ajv-schema-validator.js';
import { SqlJsTableReader } from '../../adapters/sqlite/sqljs-table-reader.js';
import { WorkerThreadSqliteReader } from '../../adapters/sqlite/worker-thread-sqlite-reader.js';
import { PORT } from '../service-ids.js';

/**
 * The worker thread entry that reads SQLite tables: bundled, this module is part of
 * dist/pkg.js and sqlite-worker.js is its sibling; run from source there is none, and
 * tables are read in process.
 */
const SQLITE_WORKER = new URL('./sqlite-worker.js', import.meta.url);

/** Readers of what packages hold: JSON schemas (ajv), SQLite tables (sql.js, on a worker thread), references in HTML, CSS and JS; each library loaded on first use. */
export const contentModule = new ContainerModule(({ bind }) => {
  bind(PORT.SchemaValidator).toDynamicValue(() => new AjvSchemaValidator()).inSingletonScope();
  bind(PORT.SqliteReader).toDynamicValue(() => new WorkerThreadSqliteReader(new SqlJsTableReader(), SQLITE_WORKER)).inSingletonScope();
  bind(PORT.ContentReferenceScanner).toDynamicValue(() => new LazyReferenceScanner()).inSingletonScope();
});
