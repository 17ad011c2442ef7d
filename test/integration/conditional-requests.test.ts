import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { PORT } from '../../src/composition/service-ids.js';
import { productionContainer, swap } from '../support/production-container.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { MemoryOverlayStore } from '../fakes/memory-overlay-store.js';
import { demoPackage } from '../support/demo-package.js';
import { startReactor, startReactorIn } from '../support/reactor-fixture.js';
import { temporaryDirectory } from '../support/paths.js';

const site = demoPackage({
  'data/posts.json': JSON.stringify([
    { id: 'first', title: 'First' },
    { id: 'second', title: 'Second' },
    { id: 'third', title: 'Third' },
  ]),
  'data/settings.json': JSON.stringify({ theme: 'dark' }),
  'data/notes.json': JSON.stringify(Array.from({ length: 40 }, (_, n) => ({ id: `note-${n}`, text: 'a note long enough that the list is sent compressed' }))),
  'content/long.txt': 'long enough to be sent compressed. '.repeat(100),
  'storage.json': JSON.stringify({ storage: { dataSets: { posts: { source: 'data/posts.json' }, settings: { source: 'data/settings.json' }, notes: { source: 'data/notes.json' } } } }),
});
const STRONG = /^"[0-9a-f]{64}"$/;

type Fixture = Awaited<ReturnType<typeof startReactor>>;

/** A reactor listening on loopback, and requests to it over real connections. */
async function listening(fixture: Fixture) {
  const { port } = await fixture.server.listen(0, '127.0.0.1');
  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** A content write: a text body, or none. */
  const write = (method: 'PUT' | 'DELETE', path: string, headers: Record<string, string>, body?: string) =>
    fetch(`http://127.0.0.1:${port}${path}`, { method, headers: body === undefined ? headers : { 'Content-Type': 'text/plain', ...headers }, body });
  return { call, write, get: (path: string, headers?: Record<string, string>) => call('GET', path, headers) };
}

const sha256 = (bytes: ArrayBuffer) => `"${createHash('sha256').update(new Uint8Array(bytes)).digest('hex')}"`;

describe('conditional requests on the dataset API', () => {
  const work = temporaryDirectory('cap-conditional-');
  const overlays = new MemoryOverlayStore();
  let fixture: Fixture;
  let api: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    fixture = await startReactor(new MemoryOpener().add('site', site), [{ source: 'site' }], { workdir: work.path }, swap(PORT.OverlayStore, overlays));
    api = await listening(fixture);
  });
  afterAll(async () => {
    await fixture.stop();
    work.remove();
  });

  it('items, collections, pages and one-document datasets carry a strong ETag of the bytes sent, the same on GET, a second GET and HEAD', async () => {
    for (const path of ['/api/v1/data/posts/first', '/api/v1/data/posts', '/api/v1/data/posts?limit=2&offset=1', '/api/v1/data/settings']) {
      const first = await api.get(path);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(STRONG);
      expect(sha256(await first.arrayBuffer())).toBe(etag);
      expect((await api.get(path)).headers.get('etag')).toBe(etag);
      const head = await api.call('HEAD', path);
      expect(head.status).toBe(200);
      expect(head.headers.get('etag')).toBe(etag);
    }
  });

  it('each page has the tag of its own body; queries selecting the same items share it', async () => {
    const tagOf = async (query: string) => (await api.get(`/api/v1/data/posts${query}`)).headers.get('etag');
    const tags = [await tagOf(''), await tagOf('?limit=1'), await tagOf('?limit=1&offset=1'), await tagOf('?offset=1'), await tagOf('?limit=0')];
    expect(new Set(tags).size).toBe(tags.length);
    expect(await tagOf('?limit=99')).toBe(tags[0]);
    expect(await tagOf('?offset=0')).toBe(tags[0]);
  });

  it('If-None-Match answers 304 with the ETag and no body: the exact tag, a list, *, a weak tag; another tag gets the body', async () => {
    for (const path of ['/api/v1/data/posts/second', '/api/v1/data/posts', '/api/v1/data/posts?limit=1']) {
      const etag = (await api.get(path)).headers.get('etag')!;
      for (const header of [etag, `"other", ${etag}`, '*', `W/${etag}`, `W/"other",W/${etag}`]) {
        const response = await api.get(path, { 'If-None-Match': header });
        expect(response.status).toBe(304);
        expect(response.headers.get('etag')).toBe(etag);
        expect(await response.text()).toBe('');
        expect((await api.call('HEAD', path, { 'If-None-Match': header })).status).toBe(304);
      }
      const other = await api.get(path, { 'If-None-Match': '"other", W/"else"' });
      expect(other.status).toBe(200);
      expect(await other.text()).not.toBe('');
    }
  });

  it('GET and HEAD with If-Match: the answer when it names the current tag (or *), else 412 PRECONDITION_FAILED; a missing item stays 404', async () => {
    for (const path of ['/api/v1/data/posts/second', '/api/v1/data/posts', '/api/v1/data/posts?limit=1', '/api/v1/data/settings', '/api/v1/data/posts/second/history']) {
      const etag = (await api.get(path)).headers.get('etag')!;
      for (const header of [etag, `"other", ${etag}`, '*']) {
        expect([path, header, (await api.get(path, { 'If-Match': header })).status]).toEqual([path, header, 200]);
        expect((await api.call('HEAD', path, { 'If-Match': header })).status).toBe(200);
      }
      for (const header of ['"other"', `W/${etag}`]) {
        const refused = await api.get(path, { 'If-Match': header });
        expect([path, header, refused.status, (await refused.json()).error.code]).toEqual([path, header, 412, 'PRECONDITION_FAILED']);
        expect((await api.call('HEAD', path, { 'If-Match': header })).status).toBe(412);
      }
    }
    expect((await api.get('/api/v1/data/posts/nowhere', { 'If-Match': '*' })).status).toBe(404);
    // An encoded answer has a tag of its own: a client sent one form may hold either tag.
    const gzip = await api.get('/api/v1/data/notes', { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    const identity = (await api.get('/api/v1/data/notes')).headers.get('etag')!;
    for (const [header, encoding] of [[gzip.headers.get('etag')!, 'gzip'], [gzip.headers.get('etag')!, 'identity'], [identity, 'gzip']]) {
      const answer = await api.get('/api/v1/data/notes', { 'If-Match': header!, 'Accept-Encoding': encoding! });
      expect([header, encoding, answer.status]).toEqual([header, encoding, 200]);
    }
    const stale = await api.get('/api/v1/data/notes', { 'If-Match': '"stale-gzip"', 'Accept-Encoding': 'gzip' });
    expect([stale.status, stale.headers.get('vary')]).toEqual([412, 'Accept-Encoding']);
  });

  it('a write changes the tags of the item and of the collection, and an old tag no longer gives 304', async () => {
    const item = (await api.get('/api/v1/data/posts/third')).headers.get('etag')!;
    const collection = (await api.get('/api/v1/data/posts')).headers.get('etag')!;
    const put = await api.call('PUT', '/api/v1/data/posts/third', {}, { title: 'Third, again' });
    expect(put.status).toBe(200);
    const after = await api.get('/api/v1/data/posts/third', { 'If-None-Match': item });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(item);
    expect(put.headers.get('etag')).toBe(after.headers.get('etag'));
    const list = await api.get('/api/v1/data/posts', { 'If-None-Match': collection });
    expect(list.status).toBe(200);
    expect(list.headers.get('etag')).not.toBe(collection);
  });

  it('a POST answers with the ETag of the created item', async () => {
    const created = await api.call('POST', '/api/v1/data/posts', {}, { id: 'posted', title: 'Posted' });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toMatch(STRONG);
    expect((await api.get('/api/v1/data/posts/posted')).headers.get('etag')).toBe(created.headers.get('etag'));
  });

  it('PUT with a matching If-Match: 200 and the new ETag; a stale or weak one: 412 PRECONDITION_FAILED and the item unchanged', async () => {
    const etag = (await api.get('/api/v1/data/posts/first')).headers.get('etag')!;
    for (const header of [`W/${etag}`, '"stale"']) {
      const refused = await api.call('PUT', '/api/v1/data/posts/first', { 'If-Match': header }, { title: 'Refused' });
      expect(refused.status).toBe(412);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('PRECONDITION_FAILED');
    }
    expect((await api.get('/api/v1/data/posts/first')).headers.get('etag')).toBe(etag);
    const put = await api.call('PUT', '/api/v1/data/posts/first', { 'If-Match': `"stale", ${etag}` }, { title: 'Edited' });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ id: 'first', title: 'Edited' });
    const now = await api.get('/api/v1/data/posts/first');
    expect(put.headers.get('etag')).toBe(now.headers.get('etag'));
    expect(put.headers.get('etag')).not.toBe(etag);
    const again = await api.call('PUT', '/api/v1/data/posts/first', { 'If-Match': etag }, { title: 'Lost update' });
    expect(again.status).toBe(412);
    expect(await (await api.get('/api/v1/data/posts/first')).json()).toEqual({ id: 'first', title: 'Edited' });
  });

  it('If-Match: * needs the item to exist; any If-Match on a missing item is 412, and without one it stays 404', async () => {
    expect((await api.call('PUT', '/api/v1/data/posts/second', { 'If-Match': '*' }, { title: 'Starred' })).status).toBe(200);
    for (const header of ['*', '"anything"']) {
      const missing = await api.call('PUT', '/api/v1/data/posts/nowhere', { 'If-Match': header }, { title: 'x' });
      expect(missing.status).toBe(412);
      expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('PRECONDITION_FAILED');
      expect((await api.call('DELETE', '/api/v1/data/posts/nowhere', { 'If-Match': header })).status).toBe(412);
    }
    expect((await api.call('PUT', '/api/v1/data/posts/nowhere', {}, { title: 'x' })).status).toBe(404);
    expect((await api.get('/api/v1/data/posts/nowhere')).status).toBe(404);
  });

  it('DELETE with If-Match: a stale tag is 412 and keeps the item; the current one deletes it', async () => {
    await api.call('POST', '/api/v1/data/posts', {}, { id: 'doomed', title: 'Doomed' });
    const etag = (await api.get('/api/v1/data/posts/doomed')).headers.get('etag')!;
    expect((await api.call('DELETE', '/api/v1/data/posts/doomed', { 'If-Match': '"stale"' })).status).toBe(412);
    expect((await api.get('/api/v1/data/posts/doomed')).status).toBe(200);
    expect((await api.call('DELETE', '/api/v1/data/posts/doomed', { 'If-Match': etag })).status).toBe(204);
    expect((await api.get('/api/v1/data/posts/doomed')).status).toBe(404);
  });

  it('PUT with If-None-Match: * of an item that exists is 412; If-None-Match naming the current tag refuses PUT and DELETE', async () => {
    await api.call('POST', '/api/v1/data/posts', {}, { id: 'kept', title: 'Kept' });
    const etag = (await api.get('/api/v1/data/posts/kept')).headers.get('etag')!;
    for (const [method, headers] of [['PUT', { 'If-None-Match': '*' }], ['PUT', { 'If-None-Match': etag }], ['DELETE', { 'If-None-Match': `"other", W/${etag}` }]] as const) {
      const refused = await api.call(method, '/api/v1/data/posts/kept', headers, method === 'PUT' ? { title: 'Refused' } : undefined);
      expect(refused.status).toBe(412);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('PRECONDITION_FAILED');
    }
    expect(await (await api.get('/api/v1/data/posts/kept')).json()).toEqual({ id: 'kept', title: 'Kept' });
    expect((await api.call('PUT', '/api/v1/data/posts/kept', { 'If-None-Match': '"other"' }, { title: 'Edited' })).status).toBe(200);
  });

  describe('with appends slow enough that the second request arrives while the first is being written', () => {
    beforeAll(() => void (overlays.appendDelayMs = 100));
    afterAll(() => void (overlays.appendDelayMs = 0));

    it('of two concurrent PUTs naming the same If-Match, exactly one succeeds and the other gets 412', async () => {
      await api.call('POST', '/api/v1/data/posts', {}, { id: 'raced', title: 'Round 0' });
      for (let round = 1; round <= 10; round++) {
        const etag = (await api.get('/api/v1/data/posts/raced')).headers.get('etag')!;
        const answers = await Promise.all(['a', 'b'].map((who) => api.call('PUT', '/api/v1/data/posts/raced', { 'If-Match': etag }, { title: `Round ${round} by ${who}` })));
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
        const winner = answers.find((answer) => answer.status === 200)!;
        const stored = await api.get('/api/v1/data/posts/raced');
        expect(await stored.json()).toEqual(await winner.json());
        expect(stored.headers.get('etag')).toBe(winner.headers.get('etag'));
      }
    });

    it('two concurrent DELETEs naming the same If-Match: one 204, one 412', async () => {
      await api.call('POST', '/api/v1/data/posts', {}, { id: 'twice', title: 'Twice' });
      const etag = (await api.get('/api/v1/data/posts/twice')).headers.get('etag')!;
      const answers = await Promise.all([1, 2].map(() => api.call('DELETE', '/api/v1/data/posts/twice', { 'If-Match': etag })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([204, 412]);
    });
  });
});

describe('ETags across a restart on the same workdir (overlay files on disk)', () => {
  const work = temporaryDirectory('cap-conditional-restart-');
  afterAll(() => work.remove());
  const start = () => startReactorIn(productionContainer(swap(PORT.PackageOpener, new MemoryOpener().add('site', site))), [{ source: 'site' }], { workdir: work.path });
  const paths = ['/api/v1/data/posts', '/api/v1/data/posts/first', '/api/v1/data/posts/written', '/api/v1/data/posts?limit=2&offset=2'];

  async function tagsOf(api: Awaited<ReturnType<typeof listening>>): Promise<Array<string | null>> {
    return Promise.all(paths.map(async (path) => (await api.get(path)).headers.get('etag')));
  }

  it('a reactor started again over the same overlay gives the same tags, and honours If-Match with the old ones', async () => {
    const before = await start();
    const api = await listening(before);
    expect((await api.call('POST', '/api/v1/data/posts', {}, { id: 'written', title: 'Written', tags: ['a', 'b'] })).status).toBe(201);
    expect((await api.call('PUT', '/api/v1/data/posts/first', {}, { title: 'First, edited', n: 1.5 })).status).toBe(200);
    const tags = await tagsOf(api);
    await before.stop();

    const after = await start();
    try {
      const again = await listening(after);
      expect(await tagsOf(again)).toEqual(tags);
      expect(tags.every((tag) => STRONG.test(tag ?? ''))).toBe(true);
      expect((await again.get('/api/v1/data/posts/written', { 'If-None-Match': tags[2]! })).status).toBe(304);
      expect((await again.call('PUT', '/api/v1/data/posts/first', { 'If-Match': tags[1]! }, { title: 'After restart' })).status).toBe(200);
    } finally {
      await after.stop();
    }
  });
});

describe('conditional requests on static files and content writes', () => {
  const work = temporaryDirectory('cap-conditional-content-');
  let fixture: Fixture;
  let api: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    fixture = await startReactor(new MemoryOpener().add('site', site), [{ source: 'site' }], { workdir: work.path });
    api = await listening(fixture);
  });
  afterAll(async () => {
    await fixture.stop();
    work.remove();
  });
  const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code;

  it('a GET or HEAD whose If-Match names none of the file\'s tags is 412, with a Range too; a current tag (of any coding) or * gets the file', async () => {
    const etag = (await api.get('/style.css')).headers.get('etag')!;
    for (const headers of [{ 'If-Match': '"other"' }, { 'If-Match': `W/${etag}` }, { 'If-Match': '"other"', Range: 'bytes=0-3' }] as Array<Record<string, string>>) {
      const refused = await api.get('/style.css', headers);
      expect(refused.status).toBe(412);
      expect(await codeOf(refused)).toBe('PRECONDITION_FAILED');
      expect((await api.call('HEAD', '/style.css', headers)).status).toBe(412);
    }
    expect((await api.get('/style.css', { 'If-Match': `"other", ${etag}` })).status).toBe(200);
    expect((await api.get('/style.css', { 'If-Match': '*', Range: 'bytes=0-3' })).status).toBe(206);
    const gzip = await api.get('/long.txt', { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    const gzipTag = gzip.headers.get('etag')!;
    expect((await api.get('/long.txt', { 'If-Match': gzipTag })).status).toBe(200);
    expect((await api.get('/long.txt', { 'If-Match': gzipTag, 'Accept-Encoding': 'gzip' })).status).toBe(200);
  });

  it('PUT with If-None-Match: * creates a file that is not there and refuses (412) once it is; If-Match: * needs one', async () => {
    expect((await api.write('PUT', '/fresh.txt', { 'If-Match': '*' }, 'first')).status).toBe(412);
    expect((await api.get('/fresh.txt')).status).toBe(404);
    expect((await api.write('PUT', '/fresh.txt', { 'If-None-Match': '*' }, 'first')).status).toBe(200);
    const again = await api.write('PUT', '/fresh.txt', { 'If-None-Match': '*' }, 'second');
    expect(again.status).toBe(412);
    expect(await codeOf(again)).toBe('PRECONDITION_FAILED');
    expect(await (await api.get('/fresh.txt')).text()).toBe('first');
    expect((await api.write('PUT', '/fresh.txt', { 'If-Match': '*' }, 'second')).status).toBe(200);
  });

  it('PUT and DELETE with If-Match: a stale tag is 412 and changes nothing; the current one goes through; If-None-Match naming it refuses', async () => {
    const etag = (await api.get('/style.css')).headers.get('etag')!;
    expect((await api.write('PUT', '/style.css', { 'If-Match': '"stale"' }, 'p {}')).status).toBe(412);
    expect((await api.write('DELETE', '/style.css', { 'If-Match': '"stale"' })).status).toBe(412);
    expect((await api.write('DELETE', '/style.css', { 'If-None-Match': etag })).status).toBe(412);
    expect((await api.get('/style.css')).headers.get('etag')).toBe(etag);
    expect((await api.write('PUT', '/style.css', { 'If-Match': etag }, 'p {}')).status).toBe(200);
    expect((await api.write('PUT', '/style.css', { 'If-Match': etag }, 'lost update')).status).toBe(412);
    const now = (await api.get('/style.css')).headers.get('etag')!;
    expect((await api.write('DELETE', '/style.css', { 'If-Match': now })).status).toBe(204);
    expect((await api.get('/style.css')).status).toBe(404);
    expect((await api.write('DELETE', '/style.css', { 'If-Match': now })).status).toBe(412);
  });
});
