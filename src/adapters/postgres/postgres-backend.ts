/** What a reactor on a shared PostgreSQL store loads, as one chunk that a reactor without one never compiles. */
export { PostgresDatabase } from './postgres-database.js';
export { PostgresOverlayStore } from './postgres-overlay-store.js';
export { PostgresSessionRevocationStore } from './postgres-session-revocations.js';
