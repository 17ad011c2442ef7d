import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { EXAMPLE_SITE } from '../support/paths.js';
import { startServe } from '../support/serve-process.js';

/** Resident memory of a process in MiB, as Linux tells it. */
const residentMiB = (pid: number) => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
/** Large writes, each on a connection of its own: the primary hands them to both workers in turn. */
const replace = (url: string, n: number) =>
  fetch(`${url}/api/v1/data/articles/big`, { method: 'PUT', headers: { Connection: 'close', 'Content-Type': 'application/json' }, body: JSON.stringify({ id: 'big', title: `version ${n}`, body: 'x'.repeat(900_000) }) });

describe('pkg reactor serve --workers 2, running long', () => {
  (existsSync('/proc/self/status') ? it : it.skip)(
    'keeps the primary\'s memory flat however much the workers write: it does not keep every byte appended since it started',
    async () => {
      const reactor = await startServe([EXAMPLE_SITE, '--workers', '2']);
      try {
        const created = await fetch(`${reactor.url}/api/v1/data/articles`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: 'big', title: 'first', body: '' }) });
        expect(created.status).toBe(201);
        let n = 0;
        const write = async (count: number) => {
          for (const end = n + count; n < end; n++) expect((await replace(reactor.url, n)).status).toBe(200);
        };
        await write(40);
        const settled = residentMiB(reactor.child.pid!);
        // 72 MB more of log: kept whole, the primary would grow by at least as much.
        await write(80);
        expect(residentMiB(reactor.child.pid!) - settled).toBeLessThan(40);
        const listed = (await (await fetch(`${reactor.url}/api/v1/data/articles/big`)).json()) as { title: string };
        expect(listed.title).toBe(`version ${n - 1}`);
      } finally {
        expect(await reactor.stop('SIGTERM')).toBe(0);
      }
    },
    180_000,
  );
});
