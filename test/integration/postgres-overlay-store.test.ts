import { afterAll, beforeAll } from '@jest/globals';
import { PostgresDatabase } from '../../src/adapters/postgres/postgres-database.js';
import { PostgresOverlayStore } from '../../src/adapters/postgres/postgres-overlay-store.js';
import { describeOverlayStoreContract } from '../contracts/overlay-store.contract.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(() => postgres?.stop());

describeOverlayStoreContract(
  'PostgresOverlayStore',
  async () => {
    const url = postgres.url(await postgres.createDatabase());
    const store = new PostgresOverlayStore(await PostgresDatabase.connect(url));
    return { store, workdir: '/unused', url, dispose: () => store.close() };
  },
  {
    // Another reactor: its own connections to the same database.
    elsewhere: async (subject) => {
      const store = new PostgresOverlayStore(await PostgresDatabase.connect((subject as { url?: string }).url!));
      return { store, dispose: () => store.close() };
    },
    wholeLinesOnly: true,
  },
);
