import { ConfigParseError, ConfigValidationError, DatasetUnavailableError } from '../../domain/errors.js';

/** What the SQLite worker thread is asked: one SqliteReader.readTable call. */
export interface SqliteTask {
  database: Uint8Array;
  table: string;
  file: string;
}

/** A reader's typed error as it crosses the thread: structured cloning keeps no class. */
type SqliteFailure =
  | { kind: 'parse'; file: string; detail: string }
  | { kind: 'invalid'; file: string; issues: string[] }
  | { kind: 'unavailable'; message: string }
  | { kind: 'other'; message: string };

/** And what it answers. */
export type SqliteAnswer = { rows: Array<Record<string, unknown>> } | { failure: SqliteFailure };

export function failureOf(error: unknown): SqliteAnswer {
  if (error instanceof ConfigParseError) return { failure: { kind: 'parse', file: error.file, detail: error.detail } };
  if (error instanceof ConfigValidationError) return { failure: { kind: 'invalid', file: error.file, issues: error.issues } };
  if (error instanceof DatasetUnavailableError) return { failure: { kind: 'unavailable', message: error.message } };
  return { failure: { kind: 'other', message: error instanceof Error ? error.message : String(error) } };
}

export function errorOf(failure: SqliteFailure): Error {
  switch (failure.kind) {
    case 'parse':
      return new ConfigParseError(failure.file, failure.detail);
    case 'invalid':
      return new ConfigValidationError(failure.file, failure.issues);
    case 'unavailable':
      return new DatasetUnavailableError(failure.message);
    case 'other':
      return new Error(failure.message);
  }
}
