import { afterAll, describe, expect, it } from '@jest/globals';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AccessRecordRing } from '../../src/adapters/http/observability/access-record-ring.js';
import type { AccessLogWorkerData } from '../../src/adapters/http/observability/access-log.js';
import { EXAMPLE_SITE, ROOT, temporaryDirectory } from '../support/paths.js';
import { startServe } from '../support/serve-process.js';

const work = temporaryDirectory('cap-access-thread-');
afterAll(() => work.remove());

describe('the thread that writes JSON access lines', () => {
  it('writes every record the event loop put, in order, when the event loop outruns it by many rings', async () => {
    const file = join(work.path, 'lines.jsonl');
    const fd = openSync(file, 'w');
    // A small ring: 20,000 records are many laps of it, so the producer waits for room again and again.
    const ring = AccessRecordRing.create(8 * 1024);
    const worker = new Worker(join(ROOT, 'dist/access-log-worker.js'), { workerData: { data: ring.data, control: ring.control, idPrefix: 'p-', fd } satisfies AccessLogWorkerData, execArgv: [] });
    try {
      for (let count = 1; count <= 20_000; count++) ring.put(count, 1_700_000_000_000 + count, { method: 'GET', path: `/é"${count}`, status: 200, micros: count, client: count % 2 ? '::1' : undefined, mount: '/', bytes: count });
      expect(ring.flush(10_000)).toBe(true);
    } finally {
      await worker.terminate();
      closeSync(fd);
    }
    const lines = readFileSync(file, 'latin1').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(20_000);
    lines.forEach((line, index) => {
      const count = index + 1;
      expect(JSON.parse(line)).toEqual({ level: 30, time: new Date(1_700_000_000_000 + count).toISOString(), reqId: `p-${count}`, method: 'GET', path: `/é"${count}`, status: 200, ms: count / 1000, ...(count % 2 ? { client: '::1' } : {}), mount: '/', bytes: count, msg: 'request' });
    });
  });

  it('a reactor stopped right after a burst of requests has written a line for each, with the id each answer carried', async () => {
    const running = await startServe([EXAMPLE_SITE, '--log-format', 'json']);
    const ids = new Set<string>();
    try {
      for (let round = 0; round < 100; round++) {
        const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(`${running.url}/`)));
        for (const answer of answers) {
          ids.add(answer.headers.get('x-request-id')!);
          await answer.arrayBuffer();
        }
      }
    } finally {
      expect(await running.stop()).toBe(0);
    }
    const requests = running
      .stdout()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'request');
    expect(ids.size).toBe(1000);
    expect(new Set(requests.map((line) => line.reqId))).toEqual(ids);
    expect(running.stderr()).toBe('');
  });
});
