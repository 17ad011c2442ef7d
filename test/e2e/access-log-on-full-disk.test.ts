import { describe, expect, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, EXAMPLE_SITE } from '../support/paths.js';
import { fillDisk, smallDiskForTests } from '../support/full-disk.js';

jest.setTimeout(60_000);

// Mounting the small disk takes root; CI has it.
const { disk, onSmallDisk } = smallDiskForTests(256);

describe('a reactor whose stdout (the access log) is a file on a disk that fills up', () => {
  onSmallDisk('keeps serving, says once on stderr that its lines are dropped, and stops as asked', async () => {
    const log = join(disk!.path, 'access.log');
    const out = openSync(log, 'w');
    const child = spawn(process.execPath, [CLI, 'reactor', 'serve', '--port', '0', EXAMPLE_SITE], { stdio: ['ignore', out, 'pipe'] });
    closeSync(out);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      let url: string | undefined;
      for (let waited = 0; url === undefined && waited < 30_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        url = /Reactor listening on (http:\/\/\S+)/.exec(readFileSync(log, 'utf8'))?.[1];
      }
      expect(url).toBeDefined();
      // All but a page of the disk taken: a few dozen access lines fill it.
      fillDisk(disk!.path, 1);
      for (let i = 0; i < 300; i++) expect((await fetch(`${url}/about.html?${i}`)).status).toBe(200);
      expect(child.exitCode).toBeNull();
      expect(stderr).toBe('reactor: stdout cannot be written (ENOSPC: no space left on device, write): its lines, the access log\'s among them, are dropped until the reactor restarts\n');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
  });
});
