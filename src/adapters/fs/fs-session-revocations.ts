import { join } from 'node:path';
import { ConfigValidationError } from '../../domain/errors.js';
import type { SessionRevocationStore, SessionRevocations } from '../../application/ports/session-revocations.js';
import { RevocationsInFlight } from '../../application/auth/revocations-in-flight.js';
import { writeWholeFile } from './whole-file.js';
import { readWithoutWaiting } from './read-without-waiting.js';
import { inWorkdir, overlayError } from './workdir-errors.js';

export const REVOCATIONS_FILE = 'revoked-sessions.json';

/** `<workdir>/revoked-sessions.json`: session id -> when the session would have expired (ms), mode 0600, written whole. */
export class FsSessionRevocationStore implements SessionRevocationStore {
  constructor(private readonly now: () => number = Date.now) {}

  async open(workdir: string | undefined): Promise<SessionRevocations> {
    if (workdir === undefined) return new Revocations(new Map(), undefined, this.now);
    const file = join(workdir, REVOCATIONS_FILE);
    let text: string | undefined;
    try {
      text = (await readWithoutWaiting(file)).toString('utf8');
    } catch (error) {
      // Made a folder or unreadable by hand: named as the workdir's file it is, not node's bare 'EISDIR: ..., read'.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw overlayError(`cannot read ${inWorkdir(workdir, file)}`, error);
    }
    const entries = new Map<string, number>();
    if (text !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ConfigValidationError(file, ['must be a JSON object of session id to expiry; remove it to forget every logout']);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigValidationError(file, ['must be a JSON object of session id to expiry']);
      for (const [id, until] of Object.entries(parsed)) if (typeof until === 'number') entries.set(id, until);
    }
    return new Revocations(entries, { file, workdir }, this.now);
  }
}

class Revocations implements SessionRevocations {
  private writing: Promise<void> = Promise.resolve();
  private readonly inFlight = new RevocationsInFlight();

  constructor(
    /** The revocations on disk (all of them without a workdir). */
    private readonly entries: Map<string, number>,
    private readonly file: { file: string; workdir: string } | undefined,
    private readonly now: () => number,
  ) {}

  has(id: string): boolean {
    return this.entries.has(id);
  }

  // Checked and recorded in one step of the event loop: in-process claims cannot interleave.
  async claim(id: string, until: number): Promise<boolean> {
    if (this.inFlight.has(id) || (this.entries.get(id) ?? 0) > this.now()) return false;
    await this.revoke(id, until);
    return true;
  }

  revoke(id: string, until: number): Promise<void> {
    if (this.file === undefined) {
      this.forgetExpired();
      this.entries.set(id, until);
      return Promise.resolve();
    }
    const inFlight = this.inFlight.of(id);
    if (inFlight) return inFlight.then(() => undefined);
    // On disk already: a stale cookie replayed at the logout costs no write.
    if ((this.entries.get(id) ?? 0) >= until) return Promise.resolve();
    const { file, workdir } = this.file;
    // One write at a time, each of what is on disk and this revocation: in force once written, and not at all when the write fails.
    this.writing = this.writing
      .catch(() => undefined)
      .then(async () => {
        this.forgetExpired();
        await writeWholeFile(file, Buffer.from(JSON.stringify({ ...Object.fromEntries(this.entries), [id]: until }) + '\n'), 0o600);
        this.entries.set(id, until);
      })
      .catch((error: unknown) => {
        throw overlayError(`cannot write ${inWorkdir(workdir, file)}`, error);
      });
    return this.inFlight.track(id, this.writing);
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [known, expiry] of this.entries) if (expiry <= now) this.entries.delete(known);
  }
}
