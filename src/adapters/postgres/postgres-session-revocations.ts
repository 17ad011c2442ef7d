import type { SessionRevocationStore, SessionRevocations } from '../../application/ports/session-revocations.js';
import { RevocationsInFlight } from '../../application/auth/revocations-in-flight.js';
import { ExpiringIds } from '../../application/auth/expiring-ids.js';
import { SESSION_MAX_AGE_S } from '../../application/auth/sessions.js';
import type { PostgresDatabase } from './postgres-database.js';
import { REVOCATIONS_CHANNEL } from './postgres-schema.js';

/**
 * Revocations in the database several reactors share, so a session ended on one is ended
 * on all: each reactor holds them in memory (a session check must not wait on the
 * database), loaded at start, told of each new one, and read again after a lost connection.
 * A logout is answered once every reactor listening has the revocation (PostgresPeers).
 */
export class PostgresSessionRevocationStore implements SessionRevocationStore {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly now: () => number = Date.now,
  ) {}

  async open(): Promise<SessionRevocations> {
    const revocations = new SharedRevocations(this.database, this.now);
    await revocations.load();
    this.database.on(REVOCATIONS_CHANNEL, (id) => revocations.heard(id));
    this.database.onReconnect(() => void revocations.load().catch(() => undefined));
    return revocations;
  }
}

class SharedRevocations implements SessionRevocations {
  private readonly ids: ExpiringIds;
  private readonly inFlight = new RevocationsInFlight();

  constructor(
    private readonly database: PostgresDatabase,
    private readonly now: () => number,
  ) {
    this.ids = new ExpiringIds(now);
  }

  async load(): Promise<void> {
    const { rows } = await this.database.query<{ id: string; until_ms: string }>('SELECT id, until_ms FROM pkg_revoked_sessions WHERE until_ms > $1', [this.now()]);
    for (const row of rows) this.ids.add(row.id, Number(row.until_ms));
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  heard(id: string): void {
    // The notice names no expiry: no session outlives its maximum age from now.
    this.ids.add(id, this.now() + SESSION_MAX_AGE_S * 1000);
    this.database.peers.applied(appliedKey(id));
  }

  /** Ended once every reactor listening has heard it: the session is refused on whichever one it is tried next. */
  async revoke(id: string, until: number): Promise<void> {
    const inFlight = this.inFlight.of(id);
    if (inFlight) await inFlight;
    // Here once recorded and heard by every reactor, or heard from another reactor once it recorded it.
    else if (!this.ids.has(id)) await this.record(id, until, 'ON CONFLICT (id) DO UPDATE SET until_ms = EXCLUDED.until_ms');
  }

  /** The row's primary key decides between reactors: only the insert that made the row returns it. */
  async claim(id: string, until: number): Promise<boolean> {
    if (this.ids.has(id) || this.inFlight.has(id)) return false;
    return this.record(id, until, 'ON CONFLICT (id) DO NOTHING');
  }

  /** Inserts the row (`conflict` says what an existing one does) and tells every reactor; false when nothing was inserted or updated. */
  private record(id: string, until: number, conflict: string): Promise<boolean> {
    return this.inFlight.track(id, this.afterApplied(id, until, conflict));
  }

  private afterApplied(id: string, until: number, conflict: string): Promise<boolean> {
    return this.database.peers.afterApplied(appliedKey(id), async (unsent) => {
      const written = await this.database.transaction(async (client) => {
        // Kept until the session would have expired anyway; the expired ones go as new ones come.
        await client.query('DELETE FROM pkg_revoked_sessions WHERE until_ms <= $1', [this.now()]);
        const { rowCount } = await client.query(`INSERT INTO pkg_revoked_sessions (id, until_ms) VALUES ($1, $2) ${conflict}`, [id, until]);
        if (rowCount !== 1) return false;
        await client.query('SELECT pg_notify($1, $2)', [REVOCATIONS_CHANNEL, id]);
        return true;
      });
      if (!written) unsent();
      // Here at once, while the others are heard from.
      this.ids.add(id, until);
      return written;
    });
  }
}

/** How a revocation is named when a reactor says it applied it. */
function appliedKey(id: string): string {
  return `session ${id}`;
}
