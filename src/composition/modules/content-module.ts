import { ContainerModule } from 'inversify';
import { LazyReferenceScanner } from '../../adapters/content/lazy-reference-scanner.js';
import { AjvSchemaValidator } from '../../adapters/schema/ajv-schema-validator.js';
import { SqlJsTableReader } from '../../adapters/sqlite/sqljs-table-reader.js';
import { PORT } from '../service-ids.js';

/** Readers of what packages hold: JSON schemas (ajv), SQLite tables (sql.js), references in HTML, CSS and JS; each library loaded on first use. */
export const contentModule = new ContainerModule(({ bind }) => {
  bind(PORT.SchemaValidator).toDynamicValue(() => new AjvSchemaValidator()).inSingletonScope();
  bind(PORT.SqliteReader).toDynamicValue(() => new SqlJsTableReader()).inSingletonScope();
  bind(PORT.ContentReferenceScanner).toDynamicValue(() => new LazyReferenceScanner()).inSingletonScope();
});
