import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsWorkdirs } from '../../src/adapters/fs/fs-workdirs.js';

/** A folder as a reactor's temporary workdir looks, its lock naming `pid`, with plaintext in decrypted/. */
function temporaryWorkdir(pid: number | undefined): string {
  const directory = mkdtempSync(join(tmpdir(), 'pkg-reactor-'));
  mkdirSync(join(directory, 'decrypted'), { mode: 0o700 });
  writeFileSync(join(directory, 'decrypted', 'plain.cap'), 'plaintext', { mode: 0o600 });
  if (pid !== undefined) writeFileSync(join(directory, 'reactor.lock'), JSON.stringify({ pid, host: hostname() }) + '\n');
  return directory;
}

describe('temporary workdirs of killed reactors', () => {
  it('are removed, plaintext and all, when the next reactor makes its own; those of live or starting reactors stay', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const abandoned = temporaryWorkdir(gone);
    const live = temporaryWorkdir(process.ppid);
    const starting = temporaryWorkdir(undefined);
    try {
      const taken = await new FsWorkdirs().take(undefined);
      await taken.release();
      expect(existsSync(abandoned)).toBe(false);
      expect(existsSync(join(live, 'decrypted', 'plain.cap'))).toBe(true);
      expect(existsSync(join(starting, 'decrypted', 'plain.cap'))).toBe(true);
    } finally {
      for (const directory of [abandoned, live, starting]) rmSync(directory, { recursive: true, force: true });
    }
  });
});
