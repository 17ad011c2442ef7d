import { OverlayError } from '../../domain/errors.js';
import { unsafePathReason } from '../../domain/package/package-paths.js';
import { overlayKey } from '../../domain/serving/overlay-key.js';
import { LOG_START, holdsPlace, placeAfter, type LogPlace } from '../../domain/data/log-place.js';
import type { AppendLog, FitsAmong, LogTail, OverlayChange, OverlayEntry, OverlayFile, OverlayMount, OverlayStore, PackageOverlay } from '../../application/ports/overlay-store.js';
import type { PostgresDatabase } from './postgres-database.js';
import { APPLIED_WAIT_MS } from './postgres-peers.js';
import { APPEND_FUNCTION, CHANGES_CHANNEL } from './postgres-schema.js';

/** A notification: which overlay, whose change (`o`, the reactor's origin) and what changed. */
interface ChangeNotice {
  o: string;
  /** This reactor's count of its notices: with the origin, what the others name when they say they applied it. */
  n: number;
  k: number;
  c: OverlayChange;
}

/** PostgreSQL keeps a notification's payload under 8000 bytes; a longer one says "read everything again". */
const MAX_NOTICE = 7900;

/**
 * Overlays in one PostgreSQL database that several reactors share, keyed by mount path and
 * package as the file store keys its directories (the workdir plays no part, so reactors
 * with workdirs of their own share them). Each write is one transaction, acknowledged once
 * committed and once every other reactor listening has applied it (PostgresPeers), so a
 * client told of the write finds it on whichever reactor it asks next.
 */
export class PostgresOverlayStore implements OverlayStore {
  readonly shared = true;
  private readonly watchers = new Map<number, Set<(change: OverlayChange) => void>>();
  private sent = 0;

  constructor(private readonly database: PostgresDatabase) {
    database.onNotice<ChangeNotice>(CHANGES_CHANNEL, (notice) => this.heard(notice));
    let back: (() => void) | undefined;
    database.onLost(() => {
      // Until heard again, but not for longer than another reactor waits for one it does not hear from.
      const heard = new Promise<void>((resolve) => {
        back = resolve;
        setTimeout(resolve, APPLIED_WAIT_MS).unref();
      });
      this.tell({ kind: 'unheard', heard });
    });
    database.onReconnect(() => {
      this.tell({ kind: 'any' });
      back?.();
    });
  }

  private tell(change: OverlayChange): void {
    for (const listeners of this.watchers.values()) for (const listener of listeners) listener(change);
  }

  get description(): string {
    return `PostgreSQL at ${this.database.description}`;
  }

  async open(_workdir: string, mount: OverlayMount): Promise<PackageOverlay> {
    const key = overlayKey(mount.path, mount.packageName);
    const { rows } = await this.database.query<{ id: string }>(
      // The no-op update makes RETURNING answer for a row another reactor made first.
      'INSERT INTO pkg_overlays (key, mount, package) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key RETURNING id',
      [key, mount.path, mount.packageName],
    );
    return new PostgresPackageOverlay(Number(rows[0]!.id), `${this.description}, overlay ${key}`, this.database, this);
  }

  /** The database answers, and this reactor hears the others' changes (while it does not, its reads may miss their writes). */
  async reachable(): Promise<boolean> {
    return this.database.query('SELECT 1').then(
      () => this.database.hearing,
      () => false,
    );
  }

  async list(): Promise<OverlayMount[]> {
    const { rows } = await this.database.query<{ mount: string; package: string }>(
      `SELECT mount, package FROM pkg_overlays o
        WHERE EXISTS (SELECT 1 FROM pkg_overlay_content c WHERE c.overlay = o.id)
           OR EXISTS (SELECT 1 FROM pkg_overlay_operations l WHERE l.overlay = o.id)
        ORDER BY mount, package`,
    );
    return rows.map((row) => ({ path: row.mount, packageName: row.package }));
  }

  close(): Promise<void> {
    return this.database.close();
  }

  /**
   * Hears the overlay's changes from now on, and first reads it again: the notices of
   * changes made since it was opened were heard with no one to apply them (and said
   * applied), so a reactor starting while others write would miss them for good.
   */
  watch(overlay: number, listener: (change: OverlayChange) => void): () => void {
    let set = this.watchers.get(overlay);
    if (!set) this.watchers.set(overlay, (set = new Set()));
    set.add(listener);
    listener({ kind: 'any' });
    return () => set.delete(listener);
  }

  /**
   * Makes one change with its notice to the other reactors (`run` sends `payload` with the
   * statement that makes the change, so it is delivered once committed), and resolves once
   * every reactor listening has applied it: the changes of files are applied as they are
   * heard, and requests for a dataset wait for the catch-up they start.
   */
  async announced<T>(overlay: number, change: OverlayChange, run: (payload: string, unsent: () => void) => Promise<T>): Promise<T> {
    const n = ++this.sent;
    let payload = JSON.stringify({ o: this.database.origin, n, k: overlay, c: change } satisfies ChangeNotice);
    if (payload.length > MAX_NOTICE) payload = JSON.stringify({ o: this.database.origin, n, k: overlay, c: { kind: 'any' } } satisfies ChangeNotice);
    // `unsent`: the change came to nothing, and no notice went out to wait for.
    return this.database.peers.afterApplied(appliedKey(this.database.origin, n), (unsent) => run(payload, unsent));
  }

  private heard(notice: ChangeNotice): void {
    // This reactor applied its own changes when it made them.
    if (notice.o === this.database.origin) return;
    for (const listener of this.watchers.get(notice.k) ?? []) listener(notice.c);
    // Applied: files at once; a dataset's requests now wait for the catch-up this started.
    this.database.peers.applied(appliedKey(notice.o, notice.n));
  }
}

/** How a change to an overlay is named when a reactor says it applied it. */
function appliedKey(origin: string, n: number): string {
  return `overlay ${origin} ${n}`;
}

class PostgresPackageOverlay implements PackageOverlay {
  constructor(
    private readonly id: number,
    readonly location: string,
    private readonly database: PostgresDatabase,
    private readonly store: PostgresOverlayStore,
  ) {}

  async contentFiles(): Promise<OverlayFile[]> {
    const { rows } = await this.database.query<{ path: string; size: number }>('SELECT path, length(bytes) AS size FROM pkg_overlay_content WHERE overlay = $1 AND bytes IS NOT NULL ORDER BY path', [this.id]);
    return rows.map((row) => ({ path: row.path, size: Number(row.size) }));
  }

  async readContent(path: string): Promise<Uint8Array> {
    const { rows } = await this.database.query<{ bytes: Buffer }>('SELECT bytes FROM pkg_overlay_content WHERE overlay = $1 AND path = $2 AND bytes IS NOT NULL', [this.id, checked(path)], 'pkg_overlay_read');
    if (rows.length === 0) throw new OverlayError(`${this.location} holds no file ${path}`);
    return rows[0]!.bytes;
  }

  async *streamContent(path: string): AsyncIterable<Uint8Array> {
    // Overlay files are write bodies, bounded by the body limit: one read is the stream.
    yield await this.readContent(path);
  }

  async writeContent(path: string, bytes: Uint8Array, expected?: OverlayEntry, fits?: FitsAmong): Promise<boolean> {
    checked(path);
    return this.store.announced(this.id, { kind: 'written', path, size: bytes.length }, (notice, unsent) =>
      this.changeContent(path, { expected, fits }, unsent, WRITE_STATEMENT, [this.id, path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), CHANGES_CHANNEL, notice], 'pkg_overlay_write'),
    );
  }

  async deleteContent(path: string, expected?: OverlayEntry): Promise<boolean> {
    checked(path);
    return this.store.announced(this.id, { kind: 'deleted', path }, (notice, unsent) => this.changeContent(path, { expected }, unsent, DELETE_STATEMENT, [this.id, path, CHANGES_CHANNEL, notice], 'pkg_overlay_delete'));
  }

  /**
   * Runs a content change's one statement (which takes the overlay's content lock, so
   * content changes take turns across reactors). With `expected` or `fits`, in a
   * transaction that first takes the lock and reads what the path and the overlay hold
   * (a snapshot taken after the lock, so another reactor's change just made counts), and
   * makes the change only when the path holds `expected`, and when `fits` (which throws
   * otherwise) takes the path among the overlay's files.
   */
  private async changeContent(path: string, { expected, fits }: { expected?: OverlayEntry | undefined; fits?: FitsAmong | undefined }, unsent: () => void, statement: string, values: unknown[], name: string): Promise<boolean> {
    const { database } = this;
    if (expected === undefined && fits === undefined) {
      await database.query(statement, values, name);
      return true;
    }
    const lock = `SELECT pg_advisory_xact_lock(hashtextextended(${database.literal(`${CONTENT_LOCK}${this.id}`)}, 0))`;
    const held = `SELECT encode(sha256(bytes), 'hex') AS sha256 FROM pkg_overlay_content WHERE overlay = ${this.id} AND path = ${database.literal(path)}`;
    const files = `SELECT path FROM pkg_overlay_content WHERE overlay = ${this.id} AND bytes IS NOT NULL`;
    return database.transaction(async (client, [, read, listed]) => {
      const row = read!.rows[0] as { sha256: string | null } | undefined;
      const entry: OverlayEntry = row === undefined ? { kind: 'none' } : row.sha256 === null ? { kind: 'tombstone' } : { kind: 'file', sha256: row.sha256 };
      if (expected && (entry.kind !== expected.kind || (entry.kind === 'file' && expected.kind === 'file' && entry.sha256 !== expected.sha256))) {
        unsent();
        return false;
      }
      fits?.((listed!.rows as Array<{ path: string }>).map((file) => file.path));
      await client.query({ name, text: statement, values });
      return true;
    }, `${lock}; ${held}; ${fits ? files : 'SELECT 1'}`);
  }

  /** Not held across reactors: each reactor takes its own writes one at a time. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  async tombstones(): Promise<string[]> {
    const { rows } = await this.database.query<{ path: string }>('SELECT path FROM pkg_overlay_content WHERE overlay = $1 AND bytes IS NULL ORDER BY ordinal', [this.id]);
    return rows.map((row) => row.path);
  }

  async readLog(dataset: string): Promise<Uint8Array> {
    return joinLines((await this.lines(dataset, 0n)).map((row) => row.line));
  }

  /**
   * The lines after the one `from` names by its seq, when that line is still there with the
   * bytes read: seqs only grow, and an append takes the log's lock until it commits, so no
   * line is ever inserted before one read. Else the whole log.
   */
  async readLogFrom(dataset: string, from: LogPlace): Promise<LogTail> {
    if (from.mark !== undefined) {
      const [first, ...after] = await this.lines(dataset, BigInt(from.mark) - 1n);
      if (first?.seq === from.mark && holdsPlace(from, Buffer.from(first.line + '\n'))) {
        const bytes = joinLines(after.map((row) => row.line));
        return { bytes, whole: false, place: placeAfter(from, bytes, after.at(-1)?.seq) };
      }
    }
    const rows = await this.lines(dataset, 0n);
    const bytes = joinLines(rows.map((row) => row.line));
    return { bytes, whole: true, place: placeAfter(LOG_START, bytes, rows.at(-1)?.seq) };
  }

  async logs(): Promise<string[]> {
    const { rows } = await this.database.query<{ dataset: string }>('SELECT DISTINCT dataset FROM pkg_overlay_operations WHERE overlay = $1 ORDER BY dataset', [this.id]);
    return rows.map((row) => row.dataset);
  }

  async openLog(dataset: string, length: number): Promise<AppendLog> {
    // The position after `length` bytes: lines appended since by other reactors come later.
    let read = 0;
    let seq = 0n;
    if (length > 0) {
      for (const row of await this.lines(dataset, 0n)) {
        if (read >= length) break;
        read += Buffer.byteLength(row.line) + 1;
        seq = BigInt(row.seq);
      }
    }
    if (read !== length) throw new OverlayError(`${this.location}: the log of dataset ${dataset} does not hold ${length} bytes of whole lines`);
    return new PostgresAppendLog(this, dataset, seq);
  }

  watch(listener: (change: OverlayChange) => void): () => void {
    return this.store.watch(this.id, listener);
  }

  /** The lines after `seq`, in order: every other reactor reads them after each write, hence a named statement, as a write's own are. */
  async lines(dataset: string, after: bigint): Promise<Array<{ seq: string; line: string }>> {
    const { rows } = await this.database.query<{ seq: string; line: string }>('SELECT seq, line FROM pkg_overlay_operations WHERE overlay = $1 AND dataset = $2 AND seq > $3 ORDER BY seq', [this.id, dataset, after.toString()], 'pkg_overlay_lines');
    return rows;
  }

  /**
   * Appends under a transaction-scoped advisory lock on the log, so writers on every reactor
   * take turns: each decides after reading what the others committed. First in one
   * statement (APPEND_FUNCTION: taking the lock, reading what was appended since `after`
   * and inserting the decided lines only if that was nothing, the usual case and always for
   * a reactor alone); else with what it read, decided again. After OPTIMISTIC_ATTEMPTS such
   * tries (the others keep appending), in two round trips that decide under the lock.
   */
  async append(dataset: string, after: bigint, decide: (elsewhere: Uint8Array) => Uint8Array): Promise<bigint> {
    const { database } = this;
    return this.store.announced(this.id, { kind: 'data', dataset }, async (notice, unsent) => {
      let seen = after;
      let news: LogRow[] = [];
      for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
        const lines = wholeLines(decide(joinLines(news.map((row) => row.line!))));
        if (lines === '') {
          unsent();
          return seen;
        }
        // Either what others appended since `seen` (lines), or the seqs of these lines, inserted.
        const { rows } = await database.query<LogRow>(APPEND_STATEMENT, [this.id, dataset, seen.toString(), lines, CHANGES_CHANNEL, notice], APPEND_FUNCTION);
        news = rows.filter((row) => row.line !== null);
        if (news.length === 0) return latest(rows, seen);
        seen = latest(news, seen);
      }
      // The same lock and the same statements as the function's, without parameters, to go with BEGIN and COMMIT.
      const log = database.literal(dataset);
      const lock = `SELECT pg_advisory_xact_lock(hashtextextended(${database.literal(`pkg-overlay-log:${this.id}:${dataset}`)}, 0))`;
      const since = `SELECT seq, line FROM pkg_overlay_operations WHERE overlay = ${this.id} AND dataset = ${log} AND seq > ${seen} ORDER BY seq`;
      const notify = `pg_notify(${database.literal(CHANGES_CHANNEL)}, ${database.literal(notice)})`;
      return database.transaction(async (_client, [, read], commit) => {
        // The last try's news have not been decided on yet.
        news = news.concat(read!.rows as LogRow[]);
        const lines = splitLines(decide(joinLines(news.map((row) => row.line!))));
        seen = latest(news, seen);
        if (lines.length === 0) {
          unsent();
          return seen;
        }
        const [inserted] = await commit(
          `INSERT INTO pkg_overlay_operations (overlay, dataset, line) SELECT ${this.id}, ${log}, v.line FROM (VALUES ${lines.map((line, n) => `(${n}, ${database.literal(line)})`).join(', ')}) AS v (n, line) ORDER BY v.n RETURNING seq;
           SELECT ${notify}`,
        );
        return latest(inserted!.rows as LogRow[], seen);
      }, `${lock}; ${since}`);
    });
  }
}

/** The key of an overlay's content lock, before `<overlay id>`: a write's place among the other files is checked under it. */
const CONTENT_LOCK = 'pkg-overlay-content:';
const LOCKED = `locked AS (SELECT pg_advisory_xact_lock(hashtextextended('${CONTENT_LOCK}' || $1::bigint, 0)))`;
/** One statement is one transaction: the file and the notice commit together, in one round trip. */
const WRITE_STATEMENT = `WITH ${LOCKED},
  written AS (
    INSERT INTO pkg_overlay_content (overlay, path, bytes) SELECT $1, $2, $3::bytea FROM locked
    ON CONFLICT (overlay, path) DO UPDATE SET bytes = EXCLUDED.bytes RETURNING 1)
  SELECT pg_notify($4, $5) FROM written`;
const DELETE_STATEMENT = `WITH ${LOCKED},
  deleted AS (
    INSERT INTO pkg_overlay_content (overlay, path, bytes) SELECT $1, $2, NULL FROM locked
    ON CONFLICT (overlay, path) DO UPDATE SET bytes = NULL,
      ordinal = CASE WHEN pkg_overlay_content.bytes IS NULL THEN pkg_overlay_content.ordinal ELSE nextval('pkg_overlay_content_order') END
    RETURNING 1)
  SELECT pg_notify($3, $4) FROM deleted`;

/** A row of an operation log as read back: `line` null where only its `seq` was returned. */
interface LogRow {
  seq: string | null;
  line: string | null;
}

const APPEND_STATEMENT = `SELECT seq, line FROM ${APPEND_FUNCTION}($1, $2, $3, $4, $5, $6)`;

/** Tries of the one-round-trip append before the two-round-trip one, which never has to try again. */
const OPTIMISTIC_ATTEMPTS = 3;

/** The highest `seq` among `rows`, or `seen` when none is higher. */
function latest(rows: readonly LogRow[], seen: bigint): bigint {
  return rows.reduce((last, row) => (row.seq !== null && BigInt(row.seq) > last ? BigInt(row.seq) : last), seen);
}

class PostgresAppendLog implements AppendLog {
  constructor(
    private readonly overlay: PostgresPackageOverlay,
    private readonly dataset: string,
    private seen: bigint,
  ) {}

  async append(decide: (elsewhere: Uint8Array) => Uint8Array): Promise<void> {
    this.seen = await this.overlay.append(this.dataset, this.seen, decide);
  }

  async catchUp(): Promise<Uint8Array> {
    const news = await this.overlay.lines(this.dataset, this.seen);
    if (news.length > 0) this.seen = BigInt(news.at(-1)!.seq);
    return joinLines(news.map((row) => row.line));
  }

  async close(): Promise<void> {}
}

function joinLines(lines: readonly string[]): Uint8Array {
  return Buffer.from(lines.map((line) => line + '\n').join(''));
}

/** Appended bytes as text: whole lines, each ended by its newline, or nothing. */
function wholeLines(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text !== '' && !text.endsWith('\n')) throw new OverlayError('an operation log takes whole lines only');
  return text;
}

/** The whole lines of appended bytes, without their newlines. */
function splitLines(bytes: Uint8Array): string[] {
  const text = wholeLines(bytes);
  return text === '' ? [] : text.slice(0, -1).split('\n');
}

function checked(path: string): string {
  const reason = unsafePathReason(path);
  if (reason) throw new OverlayError(`unsafe overlay path ${path}: ${reason}`);
  return path;
}
