import type { SessionRevocationStore, SessionRevocations } from '../../application/ports/session-revocations.js';
import type { WorkerLink } from './worker-link.js';
import { ExpiringIds } from '../../application/auth/expiring-ids.js';
import { SESSION_MAX_AGE_S } from '../../application/auth/sessions.js';

/**
 * A worker's logouts when the primary is the one writer of the workdir: read from the
 * workdir's store at start (what every worker acknowledged before is durable there),
 * written by the primary, and heard from the other workers as they happen.
 */
export class IpcSessionRevocationStore implements SessionRevocationStore {
  private readonly heard = new Map<string, ExpiringIds>();

  constructor(
    private readonly link: WorkerLink,
    /** The workdir's own store, only read here. */
    private readonly files: SessionRevocationStore,
    private readonly now: () => number = Date.now,
  ) {
    // Another worker's logout names no expiry: no session outlives its maximum age from now.
    link.onRevoked((workdir, id) => this.idsOf(workdir).add(id, this.now() + SESSION_MAX_AGE_S * 1000));
  }

  async open(workdir: string | undefined): Promise<SessionRevocations> {
    const local = await this.files.open(workdir);
    if (workdir === undefined) return local;
    const heard = this.idsOf(workdir);
    return {
      has: (id) => heard.has(id) || local.has(id),
      revoke: async (id, until) => {
        // Both hold only what is durable; one being written is the primary's to join.
        if (heard.has(id) || local.has(id)) return;
        await this.link.call('revoke', workdir, id, until);
        heard.add(id, until);
      },
      // The primary decides: another worker's claim may be on its way there.
      claim: async (id, until) => {
        if (heard.has(id) || local.has(id)) return false;
        const won = (await this.link.call('claim', workdir, id, until)) === true;
        heard.add(id, until);
        return won;
      },
    };
  }

  private idsOf(workdir: string): ExpiringIds {
    let ids = this.heard.get(workdir);
    if (!ids) this.heard.set(workdir, (ids = new ExpiringIds(this.now)));
    return ids;
  }
}
