import { OverlayError } from '../../domain/errors.js';
import { unsafePathReason } from '../../domain/package/package-paths.js';
import { overlayKey } from '../../domain/serving/overlay-key.js';
import type { AppendLog, OverlayChange, OverlayFile, OverlayMount, OverlayStore, PackageOverlay } from '../../application/ports/overlay-store.js';
import type { PostgresDatabase } from './postgres-database.js';
import { APPLIED_CHANNEL, CHANGES_CHANNEL } from './postgres-schema.js';

/** A notification: which overlay, whose change (`o`, the reactor's origin) and what changed. */
interface ChangeNotice {
  o: string;
  /** This reactor's count of its notices: the others say they applied it by this number. */
  n: number;
  k: number;
  c: OverlayChange;
}

/** On the applied channel: from whom (`f`), either the notices it applied (origin and number each) or that it is there. */
interface AppliedNotice {
  f: string;
  a?: Array<[string, number]>;
  hello?: true;
}

/** PostgreSQL keeps a notification's payload under 8000 bytes; a longer one says "read everything again". */
const MAX_NOTICE = 7900;
/** Notices applied, said in one notification: each takes under 60 bytes of it. */
const APPLIED_PER_NOTICE = 120;
/** How long an acknowledged write waits at most for the other reactors to apply it (one may hang, or its listening connection be down). */
const APPLIED_WAIT_MS = 2000;
/** How often a write still waiting asks which reactors are still there: one killed meanwhile never answers. */
const STILL_THERE_MS = 100;
/** How long the reactors on the database, as last read, are taken as the ones there. */
const LISTENING_TTL_MS = 1000;

interface Waiting {
  pending: Set<string>;
  done: () => void;
}

/**
 * Overlays in one PostgreSQL database that several reactors share, keyed by mount path and
 * package as the file store keys its directories (the workdir plays no part, so reactors
 * with workdirs of their own share them). Each write is one transaction, acknowledged once
 * committed and once every other reactor listening has applied it, so a client told of
 * the write finds it on whichever reactor it asks next.
 */
export class PostgresOverlayStore implements OverlayStore {
  readonly shared = true;
  private readonly watchers = new Map<number, Set<(change: OverlayChange) => void>>();
  private sent = 0;
  /** This reactor's writes whose notices some reactors have not said they applied, by number. */
  private readonly waiting = new Map<number, Waiting>();
  private listening: { origins: Set<string>; read: number } | undefined;
  /** Reactors that let a write wait APPLIED_WAIT_MS in vain (hung, say): not waited for again until they are heard from. */
  private readonly unresponsive = new Set<string>();
  /** Others' notices applied here and not yet said so: said together, once a turn. */
  private applied: Array<[string, number]> = [];

  constructor(private readonly database: PostgresDatabase) {
    database.on(CHANGES_CHANNEL, (payload) => this.heard(payload));
    database.on(APPLIED_CHANNEL, (payload) => this.heardApplied(payload));
    database.onReconnect(() => {
      for (const listeners of this.watchers.values()) for (const listener of listeners) listener({ kind: 'any' });
      this.sayHello();
    });
    this.sayHello();
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

  async reachable(): Promise<boolean> {
    return this.database.query('SELECT 1').then(
      () => true,
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

  watch(overlay: number, listener: (change: OverlayChange) => void): () => void {
    let set = this.watchers.get(overlay);
    if (!set) this.watchers.set(overlay, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Makes one change with its notice to the other reactors (`run` sends `payload` with the
   * statement that makes the change, so it is delivered once committed), and resolves once
   * every reactor that was listening has said it applied it (`heardApplied`): the changes
   * of files are applied as they are heard, and requests for a dataset wait for the
   * catch-up they start, so by then a client told of the write finds it on any reactor.
   * A reactor that is gone meanwhile is not waited for; one that never answers, for at
   * most APPLIED_WAIT_MS, and not again until it is heard from.
   */
  async announced<T>(overlay: number, change: OverlayChange, run: (payload: string, unsent: () => void) => Promise<T>): Promise<T> {
    const n = ++this.sent;
    let payload = JSON.stringify({ o: this.database.origin, n, k: overlay, c: change } satisfies ChangeNotice);
    if (payload.length > MAX_NOTICE) payload = JSON.stringify({ o: this.database.origin, n, k: overlay, c: { kind: 'any' } } satisfies ChangeNotice);
    const applied = this.appliedEverywhere(n, await this.others());
    try {
      // `unsent`: the change came to nothing, and no notice went out to wait for.
      const result = await run(payload, () => this.waiting.get(n)?.done());
      await applied;
      return result;
    } finally {
      this.waiting.get(n)?.done();
    }
  }

  /** Resolves once each of `others` said it applied notice `n`, or is gone, or after APPLIED_WAIT_MS. */
  private appliedEverywhere(n: number, others: Set<string>): Promise<void> {
    if (others.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const pending = new Set(others);
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(n);
        resolve();
      };
      const stillThere = () => {
        if (Date.now() - started >= APPLIED_WAIT_MS) {
          for (const origin of pending) this.unresponsive.add(origin);
          return done();
        }
        this.database.listening().then(
          (origins) => {
            for (const origin of pending) if (!origins.has(origin)) pending.delete(origin);
            if (pending.size === 0) done();
          },
          () => undefined,
        );
        timer = setTimeout(stillThere, STILL_THERE_MS);
      };
      timer = setTimeout(stillThere, STILL_THERE_MS);
      this.waiting.set(n, { pending, done });
    });
  }

  /** The other reactors listening on the database, as read within LISTENING_TTL_MS (none when it cannot be read), less the unresponsive. */
  private async others(): Promise<Set<string>> {
    if (!this.listening || Date.now() - this.listening.read >= LISTENING_TTL_MS) {
      this.listening = { origins: await this.database.listening().catch(() => new Set<string>()), read: Date.now() };
    }
    const { origins } = this.listening;
    return this.unresponsive.size === 0 ? origins : new Set([...origins].filter((origin) => !this.unresponsive.has(origin)));
  }

  private heard(payload: string): void {
    let notice: ChangeNotice;
    try {
      notice = JSON.parse(payload) as ChangeNotice;
    } catch {
      return;
    }
    // This reactor applied its own changes when it made them.
    if (notice.o === this.database.origin) return;
    for (const listener of this.watchers.get(notice.k) ?? []) listener(notice.c);
    // Applied: files at once; a dataset's requests now wait for the catch-up this started.
    if (this.applied.push([notice.o, notice.n]) === 1) setImmediate(() => this.sayApplied());
  }

  private sayApplied(): void {
    const applied = this.applied;
    this.applied = [];
    for (let i = 0; i < applied.length; i += APPLIED_PER_NOTICE) this.say({ f: this.database.origin, a: applied.slice(i, i + APPLIED_PER_NOTICE) });
  }

  /** Writers starting meanwhile count this reactor from now on, not only once they read who is there. */
  private sayHello(): void {
    this.say({ f: this.database.origin, hello: true });
  }

  private say(notice: AppliedNotice): void {
    // Not said (the database is away): the writer stops waiting for this reactor when it finds it gone, or in time.
    this.database.query('SELECT pg_notify($1, $2)', [APPLIED_CHANNEL, JSON.stringify(notice)]).catch(() => undefined);
  }

  private heardApplied(payload: string): void {
    let notice: AppliedNotice;
    try {
      notice = JSON.parse(payload) as AppliedNotice;
    } catch {
      return;
    }
    if (notice.f === this.database.origin) return;
    this.unresponsive.delete(notice.f);
    if (notice.hello) this.listening?.origins.add(notice.f);
    for (const [origin, n] of notice.a ?? []) {
      if (origin !== this.database.origin) continue;
      const waiting = this.waiting.get(n);
      if (waiting?.pending.delete(notice.f) && waiting.pending.size === 0) waiting.done();
    }
  }
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
    const { rows } = await this.database.query<{ bytes: Buffer }>('SELECT bytes FROM pkg_overlay_content WHERE overlay = $1 AND path = $2 AND bytes IS NOT NULL', [this.id, checked(path)]);
    if (rows.length === 0) throw new OverlayError(`${this.location} holds no file ${path}`);
    return rows[0]!.bytes;
  }

  async *streamContent(path: string): AsyncIterable<Uint8Array> {
    // Overlay files are write bodies, bounded by the body limit: one read is the stream.
    yield await this.readContent(path);
  }

  async writeContent(path: string, bytes: Uint8Array): Promise<void> {
    checked(path);
    // One statement is one transaction: the file and the notice commit together, in one round trip.
    await this.store.announced(this.id, { kind: 'written', path, size: bytes.length }, (notice) =>
      this.database.query(
        `WITH written AS (
           INSERT INTO pkg_overlay_content (overlay, path, bytes) VALUES ($1, $2, $3)
           ON CONFLICT (overlay, path) DO UPDATE SET bytes = EXCLUDED.bytes RETURNING 1)
         SELECT pg_notify($4, $5) FROM written`,
        [this.id, path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), CHANGES_CHANNEL, notice],
      ),
    );
  }

  async deleteContent(path: string): Promise<void> {
    checked(path);
    await this.store.announced(this.id, { kind: 'deleted', path }, (notice) =>
      this.database.query(
        `WITH deleted AS (
           INSERT INTO pkg_overlay_content (overlay, path, bytes) VALUES ($1, $2, NULL)
           ON CONFLICT (overlay, path) DO UPDATE SET bytes = NULL,
             ordinal = CASE WHEN pkg_overlay_content.bytes IS NULL THEN pkg_overlay_content.ordinal ELSE nextval('pkg_overlay_content_order') END
           RETURNING 1)
         SELECT pg_notify($3, $4) FROM deleted`,
        [this.id, path, CHANGES_CHANNEL, notice],
      ),
    );
  }

  async tombstones(): Promise<string[]> {
    const { rows } = await this.database.query<{ path: string }>('SELECT path FROM pkg_overlay_content WHERE overlay = $1 AND bytes IS NULL ORDER BY ordinal', [this.id]);
    return rows.map((row) => row.path);
  }

  async readLog(dataset: string): Promise<Uint8Array> {
    return joinLines((await this.lines(dataset, 0n)).map((row) => row.line));
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

  /** The lines after `seq`, in order. */
  async lines(dataset: string, after: bigint): Promise<Array<{ seq: string; line: string }>> {
    const { rows } = await this.database.query<{ seq: string; line: string }>('SELECT seq, line FROM pkg_overlay_operations WHERE overlay = $1 AND dataset = $2 AND seq > $3 ORDER BY seq', [this.id, dataset, after.toString()]);
    return rows;
  }

  /**
   * Appends under a transaction-scoped advisory lock on the log, so writers on every reactor
   * take turns: each decides after reading what the others committed. Two round trips: the
   * lock with the lines since `after` (sent with BEGIN), then the lines decided with their
   * notice (sent with COMMIT).
   */
  async append(dataset: string, after: bigint, decide: (elsewhere: Uint8Array) => Uint8Array): Promise<bigint> {
    const { database } = this;
    const log = database.literal(dataset);
    const opening = `SELECT pg_advisory_xact_lock(hashtextextended(${database.literal(`pkg-overlay-log:${this.id}:${dataset}`)}, 0));
      SELECT seq, line FROM pkg_overlay_operations WHERE overlay = ${this.id} AND dataset = ${log} AND seq > ${after} ORDER BY seq`;
    return this.store.announced(this.id, { kind: 'data', dataset }, (notice, unsent) =>
      database.transaction(async (_client, [, read], commit) => {
        const news = read!.rows as Array<{ seq: string; line: string }>;
        const seen = news.length > 0 ? BigInt(news.at(-1)!.seq) : after;
        const lines = splitLines(decide(joinLines(news.map((row) => row.line))));
        if (lines.length === 0) {
          unsent();
          return seen;
        }
        const values = lines.map((line) => `(${this.id}, ${log}, ${database.literal(line)})`).join(', ');
        const [inserted] = await commit(
          `INSERT INTO pkg_overlay_operations (overlay, dataset, line) VALUES ${values} RETURNING seq;
           SELECT pg_notify(${database.literal(CHANGES_CHANNEL)}, ${database.literal(notice)})`,
        );
        return inserted!.rows.reduce((last, row: { seq: string }) => (BigInt(row.seq) > last ? BigInt(row.seq) : last), seen);
      }, opening),
    );
  }
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

/** The whole lines of appended bytes, without their newlines. */
function splitLines(bytes: Uint8Array): string[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new OverlayError('an operation log takes whole lines only');
  return text.slice(0, -1).split('\n');
}

function checked(path: string): string {
  const reason = unsafePathReason(path);
  if (reason) throw new OverlayError(`unsafe overlay path ${path}: ${reason}`);
  return path;
}
