import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { Reactor, type ReactorDependencies } from '../../src/application/serving/reactor.js';
import { Dataset } from '../../src/application/data/dataset.js';
import { MAX_DATA_DOCUMENT_BYTES } from '../../src/application/package/package-reader.js';
import { ReactorServer } from '../../src/adapters/http/reactor-server.js';
import { PORT, SERVICE } from '../../src/composition/service-ids.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { MemoryOverlayStore } from '../fakes/memory-overlay-store.js';
import { demoPackage } from '../support/demo-package.js';
import { productionContainer, productionOpener, swap } from '../support/production-container.js';
import { SETTINGS, startReactor } from '../support/reactor-fixture.js';
import { temporaryDirectory } from '../support/paths.js';

const site = demoPackage({
  'data/notes.json': JSON.stringify([{ id: 'a', x: 1 }]),
  'storage.json': JSON.stringify({ storage: { dataSets: { notes: { source: 'data/notes.json' } } } }),
});

const work = temporaryDirectory('cap-dataset-limits-');
let server: ReactorServer;
let reactor: Reactor;
let http: ReturnType<typeof request>;

beforeAll(async () => {
  const container = productionContainer(swap(PORT.PackageOpener, new MemoryOpener().add('site', site)), swap(PORT.OverlayStore, new MemoryOverlayStore()));
  const dependencies = container.get(SERVICE.ReactorDependencies) as ReactorDependencies;
  // Bounds lowered from 128 MiB and 32 MiB, so that a test reaches them in a few writes.
  const limited = { ...dependencies, readers: { ...dependencies.readers, limits: { datasetBytes: 64 * 1024, historyBytes: 16 * 1024 } } };
  ({ reactor } = await Reactor.start([{ source: 'site' }], { ...SETTINGS, workdir: work.path, bodyLimit: 64 * 1024 }, limited));
  server = new ReactorServer(reactor, { log: () => undefined });
  http = request(server.httpServer);
});
afterAll(async () => {
  await server.close();
  await reactor.close();
  work.remove();
});

describe('a dataset at its bound', () => {
  it('refuses with 507 DATASET_FULL the write that would pass it, and every read and save still answers', async () => {
    const item = { s: 'a'.repeat(9000) };
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await http.post('/api/v1/data/notes').send(item)).status);
    expect(statuses.slice(0, 7)).toEqual(Array(7).fill(201));
    expect(statuses.slice(7)).toEqual([507, 507, 507]);
    const refused = await http.post('/api/v1/data/notes').send(item).expect(507);
    expect(refused.body.error).toMatchObject({ code: 'DATASET_FULL', message: expect.stringMatching(/past the 0\.0625 MiB a dataset may hold/) });
    expect((await http.get('/api/v1/data/notes').expect(200)).headers['x-total-count']).toBe('8');
    await http.get('/api/v1/data/notes?limit=2').expect(200);
    await http.post('/package/demo-site/save').expect(200);
    await http.delete('/api/v1/data/notes/2').expect(204);
    await http.post('/api/v1/data/notes').send(item).expect(201);
  });

  it('answers a query from what it selects, never serializing the whole collection first', async () => {
    const whole = jest.spyOn(Dataset.prototype, 'collection');
    try {
      const answer = await http.get('/api/v1/data/notes?limit=1').expect(200);
      expect(answer.body).toEqual([{ id: 'a', x: 1 }]);
      expect(whole).not.toHaveBeenCalled();
    } finally {
      whole.mockRestore();
    }
  });

  it('pages an item\'s history, and refuses with 400 HISTORY_TOO_LARGE a page over what one answer may hold', async () => {
    const others = ((await http.get('/api/v1/data/notes').expect(200)).body as Array<{ id: string }>).filter(({ id }) => id !== 'a');
    for (const { id } of others) await http.delete(`/api/v1/data/notes/${id}`).expect(204);
    for (let i = 0; i < 4; i++) await http.put('/api/v1/data/notes/a').send({ s: `${i}`.repeat(6000) }).expect(200);
    const refused = await http.get('/api/v1/data/notes/a/history').expect(400);
    expect(refused.body.error).toMatchObject({ code: 'HISTORY_TOO_LARGE', message: expect.stringMatching(/holds 5 versions.*limit and offset/) });
    const page = await http.get('/api/v1/data/notes/a/history?limit=2&offset=1').expect(200);
    expect(page.headers['x-total-count']).toBe('5');
    expect(page.headers.link).toContain('</api/v1/data/notes/a/history?limit=2&offset=3>; rel="next"');
    expect(page.body).toMatchObject({ dataset: 'notes', id: 'a', versions: [{ op: 'replace', item: { s: '0'.repeat(6000) } }, { op: 'replace', item: { s: '1'.repeat(6000) } }] });
    const error = await http.get('/api/v1/data/notes/a/history?sort=at').expect(400);
    expect(error.body.error.code).toBe('BAD_QUERY');
    // A second "?" is part of the query, not its end: what follows it is never silently dropped.
    const stray = await http.get('/api/v1/data/notes/a/history?limit=1?offset=3').expect(400);
    expect(stray.body.error.code).toBe('BAD_QUERY');
    await http.get('/api/v1/data/notes?at=2026-01-02T03:04:05Z?limit=1').expect(400);
  });
});

describe('save of a large dataset', () => {
  it('writes a dataset compact when indented it would pass what a dataset file may hold, so the saved package loads', async () => {
    // Nested ten deep, each number takes 2 bytes compact and about 27 indented: 11 MB becomes some 150 MB.
    const nested = (depth: number): unknown => (depth === 0 ? Array(50_000).fill(1) : [nested(depth - 1)]);
    const items = Array.from({ length: 110 }, (_, i) => ({ id: `i${i}`, a: nested(9) }));
    expect(JSON.stringify(items, null, 2).length).toBeGreaterThan(MAX_DATA_DOCUMENT_BYTES);
    const own = temporaryDirectory('cap-dataset-limits-save-');
    const big = demoPackage({ 'data/deep.json': JSON.stringify(items), 'storage.json': JSON.stringify({ storage: { dataSets: { deep: { source: 'data/deep.json' } } } }) });
    const fixture = await startReactor(new MemoryOpener().add('big', big), [{ source: 'big' }], { workdir: own.path });
    try {
      const saved = (await request(fixture.http).post('/package/demo-site/save').expect(200)).body.path as string;
      const again = await startReactor(productionOpener(), [{ source: saved }], { workdir: `${own.path}/again` });
      try {
        expect(again.failures).toEqual([]);
        expect((await request(again.http).get('/api/v1/data/deep').expect(200)).headers['x-total-count']).toBe('110');
      } finally {
        await again.stop();
      }
    } finally {
      await fixture.stop();
      own.remove();
    }
  }, 60_000);
});
