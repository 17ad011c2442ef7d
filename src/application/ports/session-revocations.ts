/**
 * Sessions ended before their expiry (logout), and OAuth2 login states already used:
 * kept until they would have expired anyway.
 */
export interface SessionRevocations {
  has(id: string): boolean;
  /**
   * Durable before it resolves: a restart does not bring the session back. An id whose
   * revocation is being written resolves (or fails) with that write; one durably revoked
   * already writes nothing.
   */
  revoke(id: string, until: number): Promise<void>;
  /**
   * Ends `id` unless it was ended already: true when this call ended it (durable before it
   * resolves), false when it was ended before, here or by any reactor or worker sharing the
   * store. Of two claims of one id, wherever they are made, one alone answers true.
   */
  claim(id: string, until: number): Promise<boolean>;
}

export interface SessionRevocationStore {
  /** The revocations of a reactor's workdir (`<workdir>/revoked-sessions.json`); in memory only without one. */
  open(workdir: string | undefined): Promise<SessionRevocations>;
}
