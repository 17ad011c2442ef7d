import { ConfigValidationError } from '../../domain/errors.js';
import { readDataFile } from '../package/package-reader.js';
import type { PackageSource } from '../ports/package-source.js';
import type { SqliteReader } from '../ports/sqlite-reader.js';

/** A write-ahead log's own header; past it, each frame is a page written after the database file was. */
const WAL_HEADER_BYTES = 32;

/**
 * The rows of a SQLite dataset's table, as the reactor serves them and validate counts them.
 * A database in WAL mode copied while open, or left by a process that never closed it,
 * keeps its latest commits in `<file>-wal`: sqlite3 reads them, the reader sees only the
 * database file (an empty one, often). Refused rather than served stale.
 */
export async function readSqliteRows(source: PackageSource, sqlite: SqliteReader, file: string, table: string): Promise<Array<Record<string, unknown>>> {
  const wal = `${file}-wal`;
  if ((source.sizeOf(wal) ?? 0) > WAL_HEADER_BYTES) {
    throw new ConfigValidationError(file, [`${wal} holds writes not yet in the database file, which SQLite reads and this reader cannot: fold them in with sqlite3 ${file} "PRAGMA wal_checkpoint(TRUNCATE)" and remove ${wal}`]);
  }
  return sqlite.readTable(await readDataFile(source, file), table, file);
}
