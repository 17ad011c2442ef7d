import { describe, expect, it } from '@jest/globals';
import type { SqliteReader } from '../../src/application/ports/sqlite-reader.js';
import { ConfigParseError, ConfigValidationError } from '../../src/domain/errors.js';
import { bytes, eachSubject, type Subject } from './subject.js';

export type SqliteRow = Record<string, string | number | null>;

export interface SqliteReaderSubject {
  reader: SqliteReader;
  /** The bytes of a database holding these tables, rows inserted in the order given. */
  database(tables: Record<string, SqliteRow[]>): Promise<Uint8Array>;
}

const PEOPLE: SqliteRow[] = [
  { id: 3, name: 'Cy', score: 2.5, note: null },
  { id: 1, name: 'Ann', score: -1, note: 'first' },
  { id: 2, name: 'Bo "quoted"', score: 0, note: '' },
];

/** The promises of the SqliteReader port (src/application/ports/sqlite-reader.ts). */
export function describeSqliteReaderContract(name: string, makeSubject: () => Promise<Subject<SqliteReaderSubject>> | Subject<SqliteReaderSubject>): void {
  describe(`${name} keeps the SqliteReader contract`, () => {
    const subject = eachSubject(makeSubject);

    it('reads a table\'s rows as JSON objects, in the order they were inserted', async () => {
      const database = await subject().database({ people: PEOPLE, other: [{ id: 9, name: 'Zed', score: 1, note: null }] });
      expect(await subject().reader.readTable(database, 'people', 'data/people.sqlite')).toEqual(PEOPLE);
    });

    it('names the file in ConfigValidationError for a table that is not there', async () => {
      const database = await subject().database({ people: PEOPLE });
      const failure = await subject().reader.readTable(database, 'persons', 'data/people.sqlite').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ConfigValidationError);
      expect((failure as ConfigValidationError).file).toBe('data/people.sqlite');
      // Empty bytes are an empty database, which has no table either.
      await expect(subject().reader.readTable(new Uint8Array(), 'people', 'data/empty.sqlite')).rejects.toThrow(ConfigValidationError);
    });

    it('names the file in ConfigParseError for bytes that are not a database', async () => {
      const notADatabase = bytes('This is a text file, not a SQLite database: '.repeat(8));
      const failure = await subject().reader.readTable(notADatabase, 'people', 'data/people.sqlite').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ConfigParseError);
      expect((failure as ConfigParseError).file).toBe('data/people.sqlite');
    });
  });
}
