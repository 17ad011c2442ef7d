/** Sessions ended before their expiry (logout): kept until they would have expired anyway. */
export interface SessionRevocations {
  has(id: string): boolean;
  /** Durable before it resolves: a restart does not bring the session back. */
  revoke(id: string, until: number): Promise<void>;
}

export interface SessionRevocationStore {
  /** The revocations of a reactor's workdir (`<workdir>/revoked-sessions.json`); in memory only without one. */
  open(workdir: string | undefined): Promise<SessionRevocations>;
}
