import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { cpSync } from 'node:fs';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-hostile-');
let running: ServeProcess;
beforeAll(async () => {
  cpSync(EXAMPLE_SITE, `${work.path}/site`, { recursive: true });
  running = await startServe([`${work.path}/site`, '--workdir', `${work.path}/workdir`]);
});
afterAll(async () => {
  await running.stop();
  work.remove();
});

const post = (body: string) => fetch(`${running.url}/api/v1/data/articles`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });

describe('a hostile client beside honest ones', () => {
  it('a body nested 20,000 levels deep is refused with 400, and the concurrent writes of other clients all succeed', async () => {
    const deep = `{"id": "deep", "title": "t", "body": "b", "tags": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const honest = Array.from({ length: 40 }, (_, i) => post(JSON.stringify({ id: `honest-${i}`, title: 't', body: 'b' })).then((r) => r.status));
    const hostile = Array.from({ length: 5 }, () => post(deep).then(async (r) => [r.status, ((await r.json()) as { error: { code: string } }).error.code]));
    const [statuses, refusals] = await Promise.all([Promise.all(honest), Promise.all(hostile)]);
    expect(statuses).toEqual(Array.from({ length: 40 }, () => 201));
    expect(refusals).toEqual(Array.from({ length: 5 }, () => [400, 'MALFORMED_JSON']));
    expect((await fetch(`${running.url}/api/v1/data/articles/deep`)).status).toBe(404);
    expect(running.stderr()).not.toMatch(/unexpected error|RangeError/);
  });
});
