// Worker thread entry: reads SQLite tables off the reactor's event loop (see WorkerThreadSqliteReader).
import { parentPort } from 'node:worker_threads';
import { failureOf, type SqliteAnswer, type SqliteTask } from '../../adapters/sqlite/sqlite-answers.js';
import { SqlJsTableReader } from '../../adapters/sqlite/sqljs-table-reader.js';

const reader = new SqlJsTableReader();
const port = parentPort!;
port.on('message', (task: SqliteTask) => {
  reader.readTable(task.database, task.table, task.file).then(
    (rows) => port.postMessage({ rows } satisfies SqliteAnswer),
    (error: unknown) => port.postMessage(failureOf(error)),
  );
});
