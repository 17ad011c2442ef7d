import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { OverlayError, ToolkitError } from '../../domain/errors.js';
import { redactCredentials, redactMessage } from '../../domain/dependencies/registry-reference.js';
import { APPLIED_CHANNEL, CHANGES_CHANNEL, LISTENER_NAME, REVOCATIONS_CHANNEL, migrate } from './postgres-schema.js';
import { PostgresPeers } from './postgres-peers.js';

/** How long a statement may take before the write it serves is refused, rather than left hanging. */
const STATEMENT_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 5_000;
const RECONNECT_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000];

type Handler = (payload: string) => void;

/**
 * One PostgreSQL database shared by several reactors: a pool for statements and one
 * connection that LISTENs for what the others change. A lost connection is reconnected by
 * itself; what was said meanwhile may be lost, so `onReconnect` listeners read everything again.
 */
export class PostgresDatabase {
  /** Tells a reactor's own notifications from the others'. */
  readonly origin = randomUUID();
  /** The other reactors on the database, and their word that they applied this one's changes. */
  peers!: PostgresPeers;
  readonly description: string;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly reconnectHandlers = new Set<() => void>();
  private readonly lostHandlers = new Set<() => void>();
  private listener: pg.Client | undefined;
  private closed = false;
  private reconnecting: NodeJS.Timeout | undefined;
  /** Set while the listening connection is lost: tries it again now, not at the next step of the back-off. */
  private retryListening: (() => void) | undefined;

  private constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
  ) {
    this.description = redactCredentials(url);
  }

  /** Connects, brings the tables to this reactor's schema version, and starts listening. */
  static async connect(url: string): Promise<PostgresDatabase> {
    const pool = new pg.Pool({ connectionString: url, max: 8, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, statement_timeout: STATEMENT_TIMEOUT_MS, query_timeout: STATEMENT_TIMEOUT_MS + 1000 });
    // An idle connection the server dropped: the next statement gets a new one.
    pool.on('error', () => undefined);
    const database = new PostgresDatabase(url, pool);
    try {
      // The listener first: a connection of its own is closed however its login fails (one
      // of the pool's, refused a password the URL lacks, stayed open and kept the process alive).
      await database.listen();
      const client = await pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
      database.peers = new PostgresPeers(database);
    } catch (error) {
      await database.close();
      throw database.failure(error, 'start');
    }
    return database;
  }

  /**
   * Runs one statement; a failure is an OverlayError (503) naming the database without
   * credentials. A `name`d statement is parsed and planned once per connection.
   */
  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>> {
    let result: pg.QueryResult<R>;
    try {
      result = await this.pool.query<R>(name === undefined ? text : { name, text, values }, name === undefined ? values : undefined);
    } catch (error) {
      throw this.failure(error);
    }
    // The database answers again: the others' changes are heard again as soon as can be, not up to 5 s later.
    this.retryListening?.();
    return result;
  }

  /**
   * Whether this reactor hears the others' changes: false while the listening connection
   * is lost, when reads here may miss what another reactor acknowledged.
   */
  get hearing(): boolean {
    return this.retryListening === undefined;
  }

  /**
   * Runs `work` in one transaction on one connection: committed before it resolves, rolled
   * back when it throws. A commit whose outcome is unknown (the connection broke) throws
   * too, so nothing is acknowledged that may not be committed. `opening` (statements
   * without parameters) goes in the same round trip as BEGIN, and `work` gets their
   * results; `work` may end the transaction itself with `commit(closing)`, which sends its
   * last statements (without parameters) in the same round trip as COMMIT.
   */
  async transaction<T>(work: (client: pg.PoolClient, opened: pg.QueryResult[], commit: (closing: string) => Promise<pg.QueryResult[]>) => Promise<T>, opening?: string): Promise<T> {
    return this.onConnection(async (client) => {
      let committed = false;
      const commit = async (closing: string): Promise<pg.QueryResult[]> => {
        committed = true;
        return results(await client.query(`${closing}; COMMIT`)).slice(0, -1);
      };
      const begun = results(await client.query(opening ? `BEGIN; ${opening}` : 'BEGIN'));
      const result = await work(client, begun.slice(1), commit);
      if (!committed) await client.query('COMMIT');
      return result;
    });
  }

  /** `run` on a connection of the pool; when it throws, any transaction it left open is rolled back and a database's failure is an OverlayError. */
  private async onConnection<T>(run: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.failure(error);
    }
    let broken: unknown;
    try {
      return await run(client);
    } catch (error) {
      broken = error;
      await client.query('ROLLBACK').catch(() => undefined);
      // The work's own refusals (a ContentConflictError, say: it has a `code` too) are the work's, not the database's.
      if (error instanceof ToolkitError || !(error instanceof Error) || !isDatabaseError(error)) throw error;
      throw this.failure(error);
    } finally {
      // A connection that failed mid-transaction is not given back for reuse.
      client.release(broken !== undefined && !(broken instanceof OverlayError) ? (broken as Error) : undefined);
    }
  }

  /** The origins of the other reactors listening on this database now: those a notification reaches. */
  async listening(): Promise<Set<string>> {
    const { rows } = await this.query<{ name: string }>('SELECT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND starts_with(application_name, $1)', [LISTENER_NAME]);
    return new Set(rows.map((row) => row.name.slice(LISTENER_NAME.length)).filter((origin) => origin !== this.origin));
  }

  /** A text value written into a statement: for the statements sent with BEGIN or COMMIT, which take no parameters. */
  literal(value: string): string {
    return pg.escapeLiteral(value);
  }

  /** `handler` hears each payload on `channel`, until the returned function is called. */
  on(channel: string, handler: Handler): () => void {
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /**
   * `handler` hears each payload on `channel` that is a JSON object, parsed (a reactor's
   * notices are); anything else said on the channel is not a reactor's and goes unheard.
   */
  onNotice<T>(channel: string, handler: (notice: T) => void): () => void {
    return this.on(channel, (payload) => {
      let notice: unknown;
      try {
        notice = JSON.parse(payload);
      } catch {
        return;
      }
      if (typeof notice === 'object' && notice !== null && !Array.isArray(notice)) handler(notice as T);
    });
  }

  /** Called when the listening connection is lost: `onReconnect` handlers follow once it is made again. */
  onLost(handler: () => void): () => void {
    this.lostHandlers.add(handler);
    return () => this.lostHandlers.delete(handler);
  }

  /** Called after the listening connection was lost and made again. */
  onReconnect(handler: () => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnecting);
    await this.listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    // Named for this reactor: the others find the reactors listening by that name (see `listening`).
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: LISTENER_NAME + this.origin });
    client.on('notification', ({ channel, payload }) => {
      for (const handler of this.handlers.get(channel) ?? []) {
        // Anyone who may connect may NOTIFY on the channel: a payload no reactor sent is said and passed over, never the end of this one.
        try {
          handler(payload ?? '');
        } catch (error) {
          process.stderr.write(`reactor: a notification on ${channel} was not understood and is ignored (${(error as Error).message})\n`);
        }
      }
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}; LISTEN ${REVOCATIONS_CHANNEL}; LISTEN ${APPLIED_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.listener = client;
  }

  private lost(client: pg.Client, attempt = 0): void {
    if (this.closed || this.listener !== client || this.retryListening) return;
    for (const handler of this.lostHandlers) handler();
    const retry = () => {
      clearTimeout(this.reconnecting);
      this.reconnecting = undefined;
      if (this.closed) return;
      this.listen().then(
        () => {
          this.retryListening = undefined;
          for (const handler of this.reconnectHandlers) handler();
        },
        () => {
          this.reconnecting = setTimeout(retry, RECONNECT_DELAYS_MS[Math.min(++attempt, RECONNECT_DELAYS_MS.length - 1)]).unref();
        },
      );
    };
    // Only from a wait between tries: not while one is under way.
    this.retryListening = () => this.reconnecting !== undefined && retry();
    this.reconnecting = setTimeout(retry, RECONNECT_DELAYS_MS[0]).unref();
  }

  /** Says whether the database is out of reach or refused the statement, credentials left out. */
  private failure(error: unknown, when: 'start' | 'serving' = 'serving'): OverlayError {
    const message = error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code || error.name : String(error);
    const reason = redactMessage(message.replace(/^Error: /, ''));
    // node-postgres words a password the server asks for and the URL lacks as its own fault.
    if (/client password must be a string/.test(message)) return new OverlayError(`the overlay database ${this.description} asks for a password, and neither the URL (postgres://user:password@...) nor PGPASSWORD gives one`, { cause: error });
    const what = error instanceof pg.DatabaseError && /^28/.test(error.code ?? '') ? 'refused the login' : error instanceof pg.DatabaseError && !/^(57P|08)/.test(error.code ?? '') ? 'refused a statement' : 'cannot be reached';
    const consequence = when === 'start' ? '' : '; writes are refused until it answers again';
    return new OverlayError(`the overlay database ${this.description} ${what}: ${reason}${consequence}`, { cause: error });
  }
}

/** The result of each statement of a query: node-postgres gives one result, not a list of one, for a single statement. */
function results(result: pg.QueryResult | pg.QueryResult[]): pg.QueryResult[] {
  return Array.isArray(result) ? result : [result];
}

/** An error of the database or of the way to it, as opposed to one `work` raised itself. */
function isDatabaseError(error: Error): boolean {
  return error instanceof pg.DatabaseError || 'code' in error || /connection|terminat|timeout/i.test(error.message);
}
