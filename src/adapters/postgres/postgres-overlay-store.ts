import type { PoolClient } from 'pg';
import { OverlayError } from '../../domain/errors.js';
import { unsafePathReason } from '../../domain/package/package-paths.js';
import { overlayKey } from '../../domain/serving/overlay-key.js';
import type { AppendLog, OverlayChange, OverlayFile, OverlayMount, OverlayStore, PackageOverlay } from '../../application/ports/overlay-store.js';
import type { PostgresDatabase } from './postgres-database.js';
import { CHANGES_CHANNEL } from './postgres-schema.js';

/** A notification: which overlay, whose change (`o`, the reactor's origin) and what changed. */
interface ChangeNotice {
  o: string;
  k: number;
  c: OverlayChange;
}

/** PostgreSQL keeps a notification's payload under 8000 bytes; a longer one says "read everything again". */
const MAX_NOTICE = 7900;

/**
 * Overlays in one PostgreSQL database that several reactors share, keyed by mount path and
 * package as the file store keys its directories (the workdir plays no part, so reactors
 * with workdirs of their own share them). Each write is one transaction, acknowledged once
 * committed, and tells the other reactors what it changed.
 */
export class PostgresOverlayStore implements OverlayStore {
  readonly shared = true;
  private readonly watchers = new Map<number, Set<(change: OverlayChange) => void>>();

  constructor(private readonly database: PostgresDatabase) {
    database.on(CHANGES_CHANNEL, (payload) => this.heard(payload));
    database.onReconnect(() => {
      for (const listeners of this.watchers.values()) for (const listener of listeners) listener({ kind: 'any' });
    });
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

  /** Sent with the transaction that makes the change, so the others hear it once it is committed. */
  async announce(client: PoolClient, overlay: number, change: OverlayChange): Promise<void> {
    let payload = JSON.stringify({ o: this.database.origin, k: overlay, c: change } satisfies ChangeNotice);
    if (payload.length > MAX_NOTICE) payload = JSON.stringify({ o: this.database.origin, k: overlay, c: { kind: 'any' } } satisfies ChangeNotice);
    await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, payload]);
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
    await this.database.transaction(async (client) => {
      await client.query(
        `INSERT INTO pkg_overlay_content (overlay, path, bytes) VALUES ($1, $2, $3)
         ON CONFLICT (overlay, path) DO UPDATE SET bytes = EXCLUDED.bytes`,
        [this.id, path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      );
      await this.store.announce(client, this.id, { kind: 'written', path, size: bytes.length });
    });
  }

  async deleteContent(path: string): Promise<void> {
    checked(path);
    await this.database.transaction(async (client) => {
      await client.query(
        `INSERT INTO pkg_overlay_content (overlay, path, bytes) VALUES ($1, $2, NULL)
         ON CONFLICT (overlay, path) DO UPDATE SET bytes = NULL,
           ordinal = CASE WHEN pkg_overlay_content.bytes IS NULL THEN pkg_overlay_content.ordinal ELSE nextval('pkg_overlay_content_order') END`,
        [this.id, path],
      );
      await this.store.announce(client, this.id, { kind: 'deleted', path });
    });
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

  /** The lines after `seq`, in order; `client` when inside a transaction. */
  async lines(dataset: string, after: bigint, client?: PoolClient): Promise<Array<{ seq: string; line: string }>> {
    const text = 'SELECT seq, line FROM pkg_overlay_operations WHERE overlay = $1 AND dataset = $2 AND seq > $3 ORDER BY seq';
    const values = [this.id, dataset, after.toString()];
    return client ? (await client.query<{ seq: string; line: string }>(text, values)).rows : (await this.database.query<{ seq: string; line: string }>(text, values)).rows;
  }

  /**
   * Appends under a transaction-scoped advisory lock on the log, so writers on every reactor
   * take turns: each decides after reading what the others committed.
   */
  async append(dataset: string, after: bigint, decide: (elsewhere: Uint8Array) => Uint8Array): Promise<bigint> {
    return this.database.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`pkg-overlay-log:${this.id}:${dataset}`]);
      const news = await this.lines(dataset, after, client);
      let last = news.length > 0 ? BigInt(news.at(-1)!.seq) : after;
      const lines = splitLines(decide(joinLines(news.map((row) => row.line))));
      if (lines.length > 0) {
        const { rows } = await client.query<{ seq: string }>('INSERT INTO pkg_overlay_operations (overlay, dataset, line) SELECT $1, $2, unnest($3::text[]) RETURNING seq', [this.id, dataset, lines]);
        for (const row of rows) if (BigInt(row.seq) > last) last = BigInt(row.seq);
        await this.store.announce(client, this.id, { kind: 'data', dataset });
      }
      return last;
    });
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
