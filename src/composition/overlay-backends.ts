import { UsageError } from '../domain/errors.js';
import { redactCredentials } from '../domain/dependencies/registry-reference.js';
import type { OverlayBackend, OverlayBackends, OverlayStore } from '../application/ports/overlay-store.js';
import type { SessionRevocationStore } from '../application/ports/session-revocations.js';

/**
 * Picks where a reactor keeps its writes: the workdir's files, or a PostgreSQL database,
 * whose client is loaded only by a reactor told to use one.
 */
export class SelectedOverlayBackends implements OverlayBackends {
  constructor(private readonly local: { overlays: OverlayStore; revocations: SessionRevocationStore }) {}

  async open(location: string | undefined): Promise<OverlayBackend> {
    if (location === undefined || location === '') return { ...this.local, close: async () => undefined };
    if (!/^postgres(ql)?:\/\//i.test(location) || !URL.canParse(location)) throw new UsageError(`--overlay ${redactCredentials(location)}: a postgres://user@host:port/database URL is expected`);
    const { PostgresDatabase, PostgresOverlayStore, PostgresSessionRevocationStore } = await import('../adapters/postgres/postgres-backend.js');
    const database = await PostgresDatabase.connect(location);
    return { overlays: new PostgresOverlayStore(database), revocations: new PostgresSessionRevocationStore(database), close: () => database.close() };
  }
}
