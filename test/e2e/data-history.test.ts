import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { createHash } from 'node:crypto';

jest.setTimeout(60_000);

const work = temporaryDirectory('cap-history-');
afterAll(() => work.remove());

const send = (url: string, method: string, body?: unknown) => fetch(url, { method, headers: { 'Content-Type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const json = async (url: string) => {
  const answer = await fetch(url);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the shape it expects
  return { status: answer.status, body: (await answer.json()) as any };
};
const article = (id: string, title: string) => ({ id, title, body: 'b' });
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('history from the operation log', () => {
  it('lists an item\'s versions and answers ?at= from the log, the same after a restart', async () => {
    const workdir = join(work.path, 'workdir');
    let running: ServeProcess = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    const api = () => `${running.url}/api/v1/data/articles`;
    try {
      expect((await send(api(), 'POST', article('fresh', 'First'))).status).toBe(201);
      await pause();
      expect((await send(`${api()}/fresh`, 'PUT', article('fresh', 'Second'))).status).toBe(200);
      await pause();
      expect((await send(`${api()}/hello-world`, 'PUT', article('hello-world', 'Hello again'))).status).toBe(200);
      await pause();
      expect((await send(`${api()}/fresh`, 'DELETE')).status).toBe(204);
    } catch (error) {
      await running.stop();
      throw error;
    }

    const check = async () => {
      const history = await json(`${api()}/fresh/history`);
      expect(history.status).toBe(200);
      expect(history.body.versions.map((version: { op: string; item?: { title: string } }) => [version.op, version.item?.title])).toEqual([['create', 'First'], ['replace', 'Second'], ['delete', undefined]]);
      const times = history.body.versions.map((version: { at: string }) => version.at);
      for (const time of times) expect(new Date(time).toISOString()).toBe(time);
      // A base item starts from the package's own version.
      const hello = (await json(`${api()}/hello-world/history`)).body.versions;
      expect(hello.map((version: { op: string; at: string | null; item: { title: string } }) => [version.op, version.at === null, version.item.title])).toEqual([['base', true, 'Hello, world'], ['replace', false, 'Hello again']]);

      // The item and the collection as they stood at each version's time.
      expect((await json(`${api()}/fresh?at=${times[0]}`)).body.title).toBe('First');
      expect((await json(`${api()}/fresh?at=${times[1]}`)).body.title).toBe('Second');
      expect((await json(`${api()}/fresh?at=${times[2]}`)).status).toBe(404);
      const base = JSON.parse(readFileSync(join(EXAMPLE_SITE, 'data/articles.json'), 'utf8')) as Array<{ id: string }>;
      const collection = await json(`${api()}?at=${encodeURIComponent(times[0])}`);
      expect(collection.body.map((item: { id: string }) => item.id)).toEqual([...base.map((item) => item.id), 'fresh']);
      return times;
    };
    const times = await check();
    await running.stop();
    running = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    try {
      expect(await check()).toEqual(times);
      const now = (await json(api())).body as Array<{ id: string; title: string }>;
      expect(now.find((item) => item.id === 'hello-world')!.title).toBe('Hello again');
      expect(now.some((item) => item.id === 'fresh')).toBe(false);
    } finally {
      await running.stop();
    }
  });

  it('answers history and ?at= right after each write, across a save of the package', async () => {
    const running = await startServe([EXAMPLE_SITE, '--workdir', join(work.path, 'saving')]);
    try {
      const api = `${running.url}/api/v1/data/articles`;
      const titles = async () => (await json(`${api}/kept/history`)).body.versions.map((version: { item?: { title: string } }) => version.item?.title);
      expect((await send(api, 'POST', article('kept', 'one'))).status).toBe(201);
      expect(await titles()).toEqual(['one']);
      expect((await fetch(`${running.url}/package/example-site/save`, { method: 'POST' })).status).toBe(200);
      expect((await send(`${api}/kept`, 'PUT', article('kept', 'two'))).status).toBe(200);
      expect(await titles()).toEqual(['one', 'two']);
      expect((await json(`${api}/kept?at=2999-01-01T00:00:00Z`)).body.title).toBe('two');
      expect((await send(`${api}/kept`, 'DELETE')).status).toBe(204);
      expect(await titles()).toEqual(['one', 'two', undefined]);
      expect((await json(`${api}/kept?at=2999-01-01T00:00:00Z`)).status).toBe(404);
    } finally {
      await running.stop();
    }
  });

  it('refuses a time that is not RFC 3339, writes to a history, and an item that never was', async () => {
    const running = await startServe([EXAMPLE_SITE]);
    try {
      const api = `${running.url}/api/v1/data/articles`;
      const bad = await json(`${api}?at=yesterday`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('BAD_QUERY');
      const mixed = await json(`${api}?at=2026-01-01T00:00:00Z&limit=1`);
      expect([mixed.status, mixed.body.error.code]).toEqual([400, 'BAD_QUERY']);
      // Read as the query decodes: never the present answered for a past asked in another spelling, or without a time.
      for (const query of ['?%61t=yesterday', '?at', '?title=x&at', '/hello-world?%61t=yesterday', '/hello-world?at']) {
        const other = await json(`${api}${query}`);
        expect([query, other.status, other.body.error?.code]).toEqual([query, 400, 'BAD_QUERY']);
      }
      const write = await send(`${api}/hello-world/history`, 'PUT', article('hello-world', 'x'));
      expect(write.status).toBe(405);
      expect(write.headers.get('allow')).toBe('GET, HEAD');
      expect((await json(`${api}/hello-world`)).body.title).toBe('Hello, world');
      expect((await json(`${api}/never/history`)).status).toBe(404);
      const head = await fetch(`${api}/hello-world/history`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    } finally {
      await running.stop();
    }
  });

  it('a read-only package answers its base data', async () => {
    const running = await startServe([EXAMPLE_SITE, '--read-only']);
    try {
      const api = `${running.url}/api/v1/data/articles`;
      expect((await json(`${api}/hello-world/history`)).body.versions).toEqual([{ op: 'base', at: null, item: expect.objectContaining({ title: 'Hello, world' }) }]);
      expect((await json(`${api}/hello-world?at=2000-01-01T00:00:00Z`)).body.title).toBe('Hello, world');
      // An offset's + sent unencoded, as curl sends it: a space once decoded, and still the offset meant.
      expect((await json(`${api}/hello-world?at=2000-01-01T00:00:00+01:00`)).body.title).toBe('Hello, world');
      expect((await json(`${api}/hello-world?at=2000-01-01T00:00:00%2001:00`)).body.title).toBe('Hello, world');
      // Tagged as every data answer is: the SHA-256 of the bytes sent, and 304 for it.
      for (const url of [`${api}/hello-world/history`, `${api}?at=2000-01-01T00:00:00Z`]) {
        const answer = await fetch(url);
        const body = Buffer.from(await answer.arrayBuffer());
        expect(answer.headers.get('etag')).toBe(`"${createHash('sha256').update(body).digest('hex')}"`);
        expect((await fetch(url, { headers: { 'If-None-Match': answer.headers.get('etag')! } })).status).toBe(304);
      }
    } finally {
      await running.stop();
    }
  });
});
