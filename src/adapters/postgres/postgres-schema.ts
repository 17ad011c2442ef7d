import type { PoolClient } from 'pg';

/** Appends decided lines to a dataset's log unless others appended first (see the migration that makes it). */
export const APPEND_FUNCTION = 'pkg_overlay_append';

/**
 * The tables of a shared overlay store, one migration per schema version. Reactors run
 * them at start under one advisory lock, so several starting at once migrate once.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE pkg_overlays (
     id bigserial PRIMARY KEY,
     key text NOT NULL UNIQUE,
     mount text NOT NULL,
     package text NOT NULL
   );
   -- A row with bytes is a written file; a row without is a tombstone. ordinal keeps tombstones in the order they were made.
   CREATE SEQUENCE pkg_overlay_content_order;
   CREATE TABLE pkg_overlay_content (
     overlay bigint NOT NULL REFERENCES pkg_overlays (id),
     path text NOT NULL,
     bytes bytea,
     ordinal bigint NOT NULL DEFAULT nextval('pkg_overlay_content_order'),
     PRIMARY KEY (overlay, path)
   );
   -- One row per operation line; seq orders the lines of one dataset, which are written under an advisory lock.
   CREATE TABLE pkg_overlay_operations (
     overlay bigint NOT NULL REFERENCES pkg_overlays (id),
     dataset text NOT NULL,
     seq bigserial,
     line text NOT NULL,
     PRIMARY KEY (overlay, dataset, seq)
   );
   CREATE TABLE pkg_revoked_sessions (
     id text PRIMARY KEY,
     until_ms bigint NOT NULL
   );`,
  // An append in one statement, planned once per connection: it takes the log's advisory
  // lock (the key reactors of version 1 take too), then reads, with a snapshot taken after
  // the lock, what others appended after `after`: when that is nothing, the lines go in with
  // their notice. Sent as a multi-statement text, the same append cost half as much again
  // of the database's time, parsing and planning it every time.
  // `lines`: the lines as one text, each ended by a newline (operation lines are JSON, which
  // never holds a raw newline): no array for the driver to escape line by line.
  `CREATE FUNCTION ${APPEND_FUNCTION}(log_overlay bigint, log_dataset text, after bigint, lines text, channel text, notice text)
     RETURNS TABLE (seq bigint, line text) LANGUAGE plpgsql VOLATILE AS $$
   BEGIN
     PERFORM pg_advisory_xact_lock(hashtextextended('pkg-overlay-log:' || log_overlay || ':' || log_dataset, 0));
     RETURN QUERY SELECT o.seq, o.line FROM pkg_overlay_operations o
       WHERE o.overlay = log_overlay AND o.dataset = log_dataset AND o.seq > after ORDER BY o.seq;
     IF FOUND THEN RETURN; END IF;
     RETURN QUERY INSERT INTO pkg_overlay_operations (overlay, dataset, line)
       SELECT log_overlay, log_dataset, l.line FROM unnest(string_to_array(left(lines, -1), E'\n')) WITH ORDINALITY AS l (line, n) ORDER BY l.n
       RETURNING pkg_overlay_operations.seq, NULL::text;
     PERFORM pg_notify(channel, notice);
   END $$;`,
];

/** Notifications of every reactor on the database: which overlay changed, and how. */
export const CHANGES_CHANNEL = 'pkg_overlay_changes';
/** Logouts on one reactor, heard by every other reactor on the database. */
export const REVOCATIONS_CHANNEL = 'pkg_session_revocations';
/** Each reactor saying it applied others' changes, and a reactor that starts saying it is there. */
export const APPLIED_CHANNEL = 'pkg_overlay_applied';
/** The application name of a reactor's listening connection, before its origin: how reactors find each other. */
export const LISTENER_NAME = 'pkg-reactor ';

/** The schema version this reactor reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Any number will do, as long as it is only ever this lock's. */
const MIGRATION_LOCK = 7_402_511_893;

/** Brings the database to SCHEMA_VERSION; refuses one a newer reactor migrated further, which it would not understand. */
export async function migrate(client: PoolClient): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS pkg_schema (version integer NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM pkg_schema');
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) throw new NewerSchemaError(current);
    for (let version = current; version < SCHEMA_VERSION; version++) await client.query(MIGRATIONS[version]!);
    if (rows.length === 0) await client.query('INSERT INTO pkg_schema (version) VALUES ($1)', [SCHEMA_VERSION]);
    else if (current < SCHEMA_VERSION) await client.query('UPDATE pkg_schema SET version = $1', [SCHEMA_VERSION]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export class NewerSchemaError extends Error {
  constructor(readonly version: number) {
    super(`its tables are at schema version ${version}, and this reactor knows versions up to ${SCHEMA_VERSION}: upgrade this reactor`);
  }
}
