import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { demoPackage } from '../support/demo-package.js';
import { productionOpener } from '../support/production-container.js';
import { startReactor } from '../support/reactor-fixture.js';
import { temporaryDirectory } from '../support/paths.js';

const site = demoPackage({
  'data/notes.json': JSON.stringify([{ id: 'a', x: 1 }]),
  'storage.json': JSON.stringify({ storage: { dataSets: { notes: { source: 'data/notes.json' } } } }),
});

const work = temporaryDirectory('cap-save-per-mount-');
let fixture: Awaited<ReturnType<typeof startReactor>>;
let http: ReturnType<typeof request>;

beforeAll(async () => {
  fixture = await startReactor(new MemoryOpener().add('site', site), [{ source: 'site' }, { source: 'site', prefix: '/v2' }], { workdir: work.path });
  http = request(fixture.http);
});
afterAll(async () => {
  await fixture.stop();
  work.remove();
});

/** The notes of a saved package, as a reactor serving it answers them. */
async function savedNotes(path: string, as: string): Promise<unknown> {
  const again = await startReactor(productionOpener(), [{ source: path }], { workdir: `${work.path}/${as}` });
  try {
    return (await request(again.http).get('/api/v1/data/notes').expect(200)).body;
  } finally {
    await again.stop();
  }
}

describe('save of a package mounted twice', () => {
  it('saves the overlay of the mount ?mount= names, and refuses with 409 AMBIGUOUS_PACKAGE a save that names none', async () => {
    await http.post('/api/v1/data/notes').send({ id: 'root' }).expect(201);
    await http.post('/v2/api/v1/data/notes').send({ id: 'second' }).expect(201);
    const ambiguous = await http.post('/package/demo-site/save').expect(409);
    expect(ambiguous.body.error).toMatchObject({ code: 'AMBIGUOUS_PACKAGE', message: expect.stringContaining('mounted at /, /v2/') });
    const second = await http.post('/package/demo-site/save?mount=/v2').expect(200);
    const root = await http.post('/package/demo-site/save?mount=/').expect(200);
    expect(await savedNotes(root.body.path, 'root')).toEqual([{ id: 'a', x: 1 }, { id: 'root' }]);
    // Saving one mount leaves the other's saved package as its answer said.
    expect(await savedNotes(second.body.path, 'second')).toEqual([{ id: 'a', x: 1 }, { id: 'second' }]);
    expect(createHash('sha256').update(readFileSync(second.body.path)).digest('hex')).toBe(second.body.sha256);
    expect(second.body.path).toBe(`${work.path}/saved/v2~demo-site/demo-site-${second.body.version}.cap`);
  });

  it('answers 404 for a mount the package does not have, 400 for two, and reads of status by mount', async () => {
    expect((await http.post('/package/demo-site/save?mount=/v3/').expect(404)).body.error.message).toContain('it is mounted at /, /v2/');
    expect((await http.post('/package/demo-site/save?mount=/&mount=/v2/').expect(400)).body.error.code).toBe('BAD_QUERY');
    await http.get('/package/demo-site/status?mount=/v2/').expect(200);
    await http.get('/package/demo-site/status').expect(200);
    expect((await http.get('/package/demo-site/save').expect(405)).headers.allow).toBe('POST');
  });
});
