import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { OverlayError, WorkdirLockedError } from '../../domain/errors.js';
import { PARTIAL_SUFFIX } from '../../domain/package/package-paths.js';
import type { TakenWorkdir, WorkdirHold, Workdirs } from '../../application/ports/workdirs.js';
import { makeDirectories } from '../shared/make-directories.js';
import { folderNotWritable, storageFailure } from '../shared/storage-failure.js';
import { statOf } from '../shared/stat-of.js';
import { unfinished } from '../shared/unfinished-paths.js';

export const LOCK_FILE = 'reactor.lock';
/** Plaintext of encrypted packages: private to the reactor that holds the workdir. */
export const DECRYPTED_DIR = 'decrypted';
/** Where half-written files can be left by a reactor that was killed. */
const OVERLAYS_DIR = 'overlays';
const SWEPT_DIRS = [OVERLAYS_DIR, 'saved'];
/** A temporary workdir is mkdtemp's: this prefix and six characters. */
const TEMPORARY_PREFIX = 'pkg-reactor-';
const TEMPORARY_NAME = /^pkg-reactor-[A-Za-z0-9]{6}$/;

interface LockRecord {
  pid: number;
  host: string;
}

/**
 * The workdir lock is a file made by link(2), which fails when the name exists: of two
 * reactors starting at once, exactly one gets it. A lock whose process is gone (killed,
 * crashed) is moved aside with rename(2), also atomic, so two reactors finding the same
 * stale lock cannot both take it.
 */
export class FsWorkdirs implements Workdirs {
  /** Workdirs this process holds: a lock naming our own pid is stale (a restarted container is pid 1 again) unless it is in here. */
  private static readonly held = new Set<string>();

  constructor(private readonly pid = process.pid) {}

  async claim(workdir: string): Promise<WorkdirHold> {
    const lock = join(workdir, LOCK_FILE);
    const record: LockRecord = { pid: this.pid, host: hostname() };
    const mine = `${lock}.${randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`;
    try {
      await makeDirectories(workdir);
      await writeFile(mine, JSON.stringify(record) + '\n', { mode: 0o644 });
      await this.lock(lock, mine);
    } catch (error) {
      // A full or read-only disk, or a folder this user may not write, is the operator's to mend, said as such: node's own error names no file (a failed write) or only the lock's partial one.
      const where = `cannot take the workdir ${workdir}`;
      throw storageFailure(where, error) ?? folderNotWritable(where, 'the workdir', error) ?? error;
    } finally {
      await rm(mine, { force: true });
    }
    FsWorkdirs.held.add(lock);
    try {
      await sweep(workdir);
    } catch (error) {
      FsWorkdirs.held.delete(lock);
      await rm(lock, { force: true });
      throw error;
    }
    // A signal the reactor does not stop gracefully on (SIGHUP: its terminal closed), or any while it starts, must not leave plaintext until the next start.
    const decrypted = join(workdir, DECRYPTED_DIR);
    unfinished.add(decrypted);
    return {
      release: async () => {
        // What a process of this reactor could not remove itself: a worker killed while it served (--workers).
        await emptyDecrypted(workdir).catch(() => undefined);
        unfinished.delete(decrypted);
        FsWorkdirs.held.delete(lock);
        await rm(lock, { force: true });
      },
    };
  }

  async claimExisting(workdir: string): Promise<WorkdirHold> {
    // Every claim makes decrypted/, and a write overlays/: a folder with neither was never a workdir.
    const marks = await Promise.all([OVERLAYS_DIR, DECRYPTED_DIR].map(async (name) => (await statOf(join(workdir, name)))?.isDirectory() === true));
    if (!marks.includes(true)) throw new OverlayError(`${workdir} is not a reactor workdir: it holds neither ${OVERLAYS_DIR}/ nor ${DECRYPTED_DIR}/`);
    return this.claim(workdir);
  }

  async take(workdir: string | undefined): Promise<TakenWorkdir> {
    const temporary = workdir === undefined ? await mkdtemp(join(tmpdir(), TEMPORARY_PREFIX)) : undefined;
    // Removed by a signal that ends the process before the reactor could stop (see unfinished).
    if (temporary) unfinished.add(temporary);
    const remove = async () => {
      if (!temporary) return;
      await rm(temporary, { recursive: true, force: true });
      unfinished.delete(temporary);
    };
    const path = resolve(workdir ?? temporary!);
    let hold: WorkdirHold;
    try {
      hold = await this.claim(path);
    } catch (error) {
      await remove();
      throw error;
    }
    // Off the start's path (removing one may take a while: a decrypted package), and once this one is held, so it is never taken for abandoned.
    const sweeping = temporary ? this.removeAbandoned().catch(() => undefined) : undefined;
    return {
      path,
      temporary: temporary !== undefined,
      release: async () => {
        await sweeping;
        await hold.release();
        await remove();
      },
    };
  }

  private async lock(lock: string, mine: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(mine, lock);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readLock(lock);
      // A lock is linked into place whole, so one that does not read was edited by hand: whose it is cannot be told.
      if (holder === 'unreadable') throw new WorkdirLockedError(`workdir ${lock.slice(0, -LOCK_FILE.length - 1)} holds a ${LOCK_FILE} that is not one this tool wrote; if no reactor uses the workdir, remove the file`);
      if (holder && holder.host === hostname() && this.isLive(holder, lock)) {
        throw new WorkdirLockedError(`workdir ${lock.slice(0, -LOCK_FILE.length - 1)} is in use by another reactor (pid ${holder.pid}); stop it, or give this one another --workdir`);
      }
      if (holder && holder.host !== hostname()) {
        throw new WorkdirLockedError(`workdir ${lock.slice(0, -LOCK_FILE.length - 1)} is locked by a reactor on ${holder.host} (pid ${holder.pid}); a workdir belongs to one reactor`);
      }
      // Stale: its reactor is gone. Moved aside, never deleted in place, so only one taker wins.
      await rename(lock, `${lock}.stale-${randomBytes(6).toString('hex')}`).catch(() => undefined);
      await rmStale(lock);
    }
    throw new WorkdirLockedError(`workdir ${lock.slice(0, -LOCK_FILE.length - 1)}: could not take its lock`);
  }

  private isLive(holder: LockRecord, lock: string): boolean {
    return holder.pid === this.pid ? FsWorkdirs.held.has(lock) : isAlive(holder.pid);
  }

  /**
   * The temporary workdirs of reactors killed outright (SIGKILL, a crash, a power cut):
   * nothing else ever removes them, nor the plaintext of encrypted packages they hold. Only
   * those whose lock names a process of this host that is gone: one without a lock is
   * starting, or being removed by its reactor. Each is renamed before it is removed, so of
   * two reactors starting at once only one removes it. Never a reason not to start.
   */
  private async removeAbandoned(): Promise<void> {
    const names = await readdir(tmpdir()).catch(() => [] as string[]);
    for (const name of names.filter((entry) => TEMPORARY_NAME.test(entry))) {
      const directory = join(tmpdir(), name);
      const lock = join(directory, LOCK_FILE);
      const holder = await readLock(lock);
      if (holder === undefined || holder === 'unreadable' || holder.host !== hostname() || this.isLive(holder, lock)) continue;
      const aside = `${directory}.abandoned-${randomBytes(6).toString('hex')}`;
      try {
        await rename(directory, aside);
      } catch {
        continue;
      }
      await rm(aside, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

/** The lock's holder; undefined when the lock is gone since (taken and let go meanwhile), 'unreadable' when it holds no holder. */
async function readLock(lock: string): Promise<LockRecord | 'unreadable' | undefined> {
  let text: string;
  try {
    text = await readFile(lock, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const record = JSON.parse(text) as Partial<LockRecord>;
    return typeof record.pid === 'number' && typeof record.host === 'string' ? { pid: record.pid, host: record.host } : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function rmStale(lock: string): Promise<void> {
  const directory = lock.slice(0, -LOCK_FILE.length - 1);
  for (const name of await readdir(directory)) if (name.startsWith(`${LOCK_FILE}.stale-`)) await rm(join(directory, name), { force: true });
}

/** Plaintext a killed reactor left, and files it was half-way through writing. */
async function sweep(workdir: string): Promise<void> {
  await emptyDecrypted(workdir);
  for (const name of SWEPT_DIRS) {
    let entries: string[];
    try {
      entries = await readdir(join(workdir, name), { recursive: true });
    } catch {
      continue;
    }
    for (const entry of entries) if (entry.endsWith(PARTIAL_SUFFIX)) await rm(join(workdir, name, entry), { recursive: true, force: true });
  }
}

/** The plaintext folder, empty and private to the reactor. */
async function emptyDecrypted(workdir: string): Promise<void> {
  const decrypted = join(workdir, DECRYPTED_DIR);
  await rm(decrypted, { recursive: true, force: true });
  await mkdir(decrypted, { mode: 0o700 });
  await chmod(decrypted, 0o700);
}
