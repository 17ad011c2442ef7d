import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigValidationError } from '../../domain/errors.js';
import type { SessionRevocationStore, SessionRevocations } from '../../application/ports/session-revocations.js';
import { writeWholeFile } from './whole-file.js';
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
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
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

  constructor(
    private readonly entries: Map<string, number>,
    private readonly file: { file: string; workdir: string } | undefined,
    private readonly now: () => number,
  ) {}

  has(id: string): boolean {
    return this.entries.has(id);
  }

  // Checked and recorded in one step of the event loop: in-process claims cannot interleave.
  async claim(id: string, until: number): Promise<boolean> {
    if ((this.entries.get(id) ?? 0) > this.now()) return false;
    await this.revoke(id, until);
    return true;
  }

  revoke(id: string, until: number): Promise<void> {
    const now = this.now();
    for (const [known, expiry] of this.entries) if (expiry <= now) this.entries.delete(known);
    const before = this.entries.get(id);
    this.entries.set(id, until);
    if (this.file === undefined) return Promise.resolve();
    const { file, workdir } = this.file;
    // One write at a time, each of the whole current list.
    this.writing = this.writing
      .catch(() => undefined)
      .then(() => writeWholeFile(file, Buffer.from(JSON.stringify(Object.fromEntries(this.entries)) + '\n'), 0o600))
      .catch((error: unknown) => {
        // Not on disk, so not ended: the session would be valid again after a restart, and a logout tried again must write it, not find it ended.
        if (this.entries.get(id) === until) {
          if (before === undefined) this.entries.delete(id);
          else this.entries.set(id, before);
        }
        throw overlayError(`cannot write ${inWorkdir(workdir, file)}`, error);
      });
    return this.writing;
  }
}
