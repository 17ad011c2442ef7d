/** Reads SQLite datasets. Queries bind their parameters; a table name is checked against the schema first. */
export interface SqliteReader {
  /**
   * The rows of `table` as JSON objects, in rowid order. Throws ConfigValidationError
   * naming `file` when the table does not exist, ConfigParseError when the bytes are
   * not a SQLite database.
   */
  readTable(database: Uint8Array, table: string, file: string): Promise<Array<Record<string, unknown>>>;
}
