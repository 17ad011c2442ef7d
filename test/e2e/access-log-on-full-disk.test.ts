import { afterAll, describe, expect, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { closeSync, cpSync, openSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLI, EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { fillDisk, smallDiskForTests } from '../support/full-disk.js';

jest.setTimeout(60_000);

// Mounting the small disk takes root; CI has it.
const { disk, onSmallDisk } = smallDiskForTests(256);

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The build without its JSON access-log thread, as when the thread failed: the lines go through pino's asynchronous destination.
const withoutThread = temporaryDirectory('cap-no-log-thread-');
afterAll(() => withoutThread.remove());
cpSync(dirname(CLI), withoutThread.path, { recursive: true });
rmSync(join(withoutThread.path, 'access-log-worker.js'));

describe.each([
  ['text', CLI],
  ['json', CLI],
  ['json (written without its thread)', join(withoutThread.path, 'pkg.js')],
])('a reactor whose stdout (the %s access log) is a file on a disk that fills up', (name, cli) => {
  const format = name.split(' ')[0]!;
  onSmallDisk('keeps serving, says once on stderr that its lines are dropped, logs again once there is room, and stops as asked', async () => {
    const log = join(disk!.path, 'access.log');
    const out = openSync(log, 'w');
    const child = spawn(process.execPath, [cli, 'reactor', 'serve', '--port', '0', '--log-format', format, EXAMPLE_SITE], { stdio: ['ignore', out, 'pipe'] });
    closeSync(out);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let makeRoom: (() => void) | undefined;
    try {
      let url: string | undefined;
      for (let waited = 0; url === undefined && waited < 30_000; waited += 50) {
        await settle(50);
        url = /Reactor listening on (http:\/\/[^\s"]+)/.exec(readFileSync(log, 'utf8'))?.[1];
      }
      expect(url).toBeDefined();
      // All but a page of the disk taken: a few dozen access lines fill it.
      makeRoom = fillDisk(disk!.path, 1);
      for (let i = 0; i < 300; i++) expect((await fetch(`${url}/about.html?full-${i}`, { signal: AbortSignal.timeout(5000) })).status).toBe(200);
      await settle(200);
      expect(child.exitCode).toBeNull();
      expect(stderr).toBe('reactor: stdout cannot be written (ENOSPC: no space left on device, write): its lines, the access log\'s among them, are dropped until it takes writes again\n');
      // Room again: the next lines are written, without a restart, and what was dropped is counted.
      makeRoom();
      makeRoom = undefined;
      for (let i = 0; i < 5; i++) expect((await fetch(`${url}/room-${i}`)).status).toBe(404);
      await settle(200);
      expect(readFileSync(log, 'utf8')).toContain('/room-4');
      expect(stderr).toMatch(/\nreactor: stdout takes writes again; \d+ lines were dropped meanwhile\n$/);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      makeRoom?.();
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
  });
});
