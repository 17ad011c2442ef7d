import { APPLIED_CHANNEL } from './postgres-schema.js';

/** What the peers need of PostgresDatabase (which holds them): its notifications, and who is listening. */
export interface PeersDatabase {
  readonly origin: string;
  onNotice<T>(channel: string, handler: (notice: T) => void): () => void;
  onReconnect(handler: () => void): () => void;
  query(text: string, values?: unknown[], name?: string): Promise<unknown>;
  listening(): Promise<Set<string>>;
}

/** On the applied channel: from whom (`f`), either the changes it applied (by key) or that it is there. */
interface AppliedNotice {
  f: string;
  a?: string[];
  hello?: true;
}

/** Keys said applied in one notification: PostgreSQL keeps a payload under 8000 bytes. */
const KEYS_PER_NOTICE = 60;
/** How long a change waits at most for the other reactors to apply it (one may hang, or its listening connection be down). */
export const APPLIED_WAIT_MS = 2000;
/** How often a change still waiting asks which reactors are still there: one killed meanwhile never answers. */
const STILL_THERE_MS = 100;
/** How long the reactors on the database, as last read, are taken as the ones there. */
const LISTENING_TTL_MS = 1000;

interface Waiting {
  pending: Set<string>;
  done: () => void;
}

/**
 * The other reactors on one database, and their word that they applied a change: a change
 * a reactor made is acknowledged to its client only once every other reactor listening
 * has applied it, so the client finds it on whichever reactor it asks next. Each change
 * has a key its notice lets the others name; each reactor says which keys it applied, a
 * turn's worth in one notification. A reactor that is gone meanwhile is not waited for;
 * one that never answers, for at most APPLIED_WAIT_MS, and not again until it is heard from.
 */
export class PostgresPeers {
  private readonly waiting = new Map<string, Waiting>();
  private listening: { origins: Set<string>; read: number } | undefined;
  /** Reactors that let a change wait APPLIED_WAIT_MS in vain (hung, say): not waited for again until they are heard from. */
  private readonly unresponsive = new Set<string>();
  /** Keys of others' changes applied here and not yet said so. */
  private said: string[] = [];

  constructor(private readonly database: PeersDatabase) {
    database.onNotice<AppliedNotice>(APPLIED_CHANNEL, (notice) => this.heard(notice));
    // Writers starting meanwhile count this reactor from now on, not only once they read who is there.
    database.onReconnect(() => this.say({ f: database.origin, hello: true }));
    this.say({ f: database.origin, hello: true });
  }

  /**
   * Makes the change keyed `key` (`run` sends its notice with the statement that makes it,
   * so the others hear it once committed) and resolves once every other reactor that was
   * listening applied it. `run` calls `unsent` when the change came to nothing.
   */
  async afterApplied<T>(key: string, run: (unsent: () => void) => Promise<T>): Promise<T> {
    const applied = this.appliedEverywhere(key, await this.others());
    try {
      const result = await run(() => this.waiting.get(key)?.done());
      await applied;
      return result;
    } finally {
      this.waiting.get(key)?.done();
    }
  }

  /** This reactor applied another's change keyed `key`: said with the others of this turn. */
  applied(key: string): void {
    if (this.said.push(key) === 1) setImmediate(() => this.sayApplied());
  }

  private appliedEverywhere(key: string, others: Set<string>): Promise<void> {
    if (others.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const pending = new Set(others);
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(key);
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
      this.waiting.set(key, { pending, done });
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

  private sayApplied(): void {
    const keys = this.said;
    this.said = [];
    for (let i = 0; i < keys.length; i += KEYS_PER_NOTICE) this.say({ f: this.database.origin, a: keys.slice(i, i + KEYS_PER_NOTICE) });
  }

  private say(notice: AppliedNotice): void {
    // Not said (the database is away): the writer stops waiting for this reactor when it finds it gone, or in time.
    this.database.query('SELECT pg_notify($1, $2)', [APPLIED_CHANNEL, JSON.stringify(notice)], 'pkg_applied').catch(() => undefined);
  }

  private heard(notice: AppliedNotice): void {
    if (notice.f === this.database.origin) return;
    this.unresponsive.delete(notice.f);
    if (notice.hello) this.listening?.origins.add(notice.f);
    for (const key of notice.a ?? []) {
      const waiting = this.waiting.get(key);
      if (waiting?.pending.delete(notice.f) && waiting.pending.size === 0) waiting.done();
    }
  }
}
