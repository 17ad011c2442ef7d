import { open, rm, stat } from 'node:fs/promises';

/** A holder that has not let go in this long has died holding the lock. */
const STALE_AFTER_MS = 30_000;
const GIVE_UP_AFTER_MS = 60_000;

/**
 * Runs `work` while holding `<path>` as a lock file (created exclusively, removed
 * after). Index rewrites are read-merge-write, so two writers must take turns or one
 * loses the other's entry; this is how processes sharing a store or registry take turns.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid)).catch(async (error: unknown) => {
        // A full disk takes the name but not the pid: a lock file left there would hold every other writer off until it is stale.
        await handle.close();
        await rm(path, { force: true });
        throw error;
      });
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = await stat(path).catch(() => undefined);
      if (held && Date.now() - held.mtimeMs > STALE_AFTER_MS) await rm(path, { force: true });
      else if (Date.now() - started > GIVE_UP_AFTER_MS) throw new Error(`${path} stayed locked for a minute; remove it if no pkg process is running`, { cause: error });
      else await new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 + attempt * 10 + Math.random() * 20)));
    }
  }
  try {
    return await work();
  } finally {
    await rm(path, { force: true });
  }
}
