import { afterAll, describe, expect, it } from '@jest/globals';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { failingServe, startServe } from '../support/serve-process.js';

const work = temporaryDirectory('cap-durability-');
afterAll(() => work.remove());

const article = (id: string, title = `Title ${id}`) => ({ id, title, body: `Body of ${id}` });
const post = (url: string, item: unknown) => fetch(`${url}/api/v1/data/articles`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(item) });
const ids = async (url: string) => ((await (await fetch(`${url}/api/v1/data/articles`)).json()) as Array<{ id: string }>).map((a) => a.id);

describe('overlay durability', () => {
  it('every acknowledged write survives SIGKILL mid-flight, and a restart on the same workdir shows it', async () => {
    const workdir = join(work.path, 'killed');
    const first = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    // The first writes load the write paths (the dataset log; express for content); the clock starts once they are answered.
    expect((await post(first.url, article('warm-up'))).status).toBe(201);
    expect((await fetch(`${first.url}/written/warm-up.txt`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'warm-up' })).status).toBe(200);
    const acknowledged: string[] = ['warm-up'];
    const acknowledgedFiles: string[] = ['warm-up'];
    let stop = false;
    const writer = async (worker: number) => {
      for (let n = 0; !stop; n++) {
        const id = `w${worker}-${n}`;
        try {
          if ((await post(first.url, article(id))).status === 201) acknowledged.push(id);
          if (n % 10 === 0 && (await fetch(`${first.url}/written/${id}.txt`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: id })).status === 200) acknowledgedFiles.push(id);
        } catch {
          return; // the reactor is gone
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, worker) => writer(worker));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await first.stop('SIGKILL')).toBeNull();
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(20);

    const second = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    try {
      const present = new Set(await ids(second.url));
      expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
      for (const id of acknowledgedFiles) expect(await (await fetch(`${second.url}/written/${id}.txt`)).text()).toBe(id);
    } finally {
      await second.stop();
    }
  });

  it('a torn last line is ignored with a warning, never a failed start; the next write follows the last whole one', async () => {
    const workdir = join(work.path, 'torn');
    const first = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    expect((await post(first.url, article('kept'))).status).toBe(201);
    await first.stop();
    const log = join(workdir, 'overlays/root~example-site/data/articles.log.jsonl');
    appendFileSync(log, '{"op":"create","id":"half","item":{"id":"ha');
    const second = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    try {
      expect(second.stderr()).toMatch(/warning: .*articles\.log\.jsonl: ignored a torn last line/);
      expect(await ids(second.url)).toContain('kept');
      expect(await ids(second.url)).not.toContain('half');
      expect((await post(second.url, article('after'))).status).toBe(201);
    } finally {
      await second.stop();
    }
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(['kept', 'after']);
  });

  it('a corrupt line inside a log stops that package with its file and line, not silently', async () => {
    const workdir = join(work.path, 'corrupt');
    const log = join(workdir, 'overlays/root~example-site/data/articles.log.jsonl');
    const first = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    await post(first.url, article('one'));
    await first.stop();
    writeFileSync(log, 'not json\n' + readFileSync(log, 'utf8'));
    const failed = await failingServe([EXAMPLE_SITE, '--workdir', workdir]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/error: ConfigParseError: .*articles\.log\.jsonl:1:1/);
  });

  it('concurrent replacements of one item through REST and GraphQL leave one of the bodies intact', async () => {
    const running = await startServe([EXAMPLE_SITE, '--workdir', join(work.path, 'mixed')]);
    try {
      const titles = Array.from({ length: 40 }, (_, i) => `Version ${i}`);
      await Promise.all(
        titles.map((title, i) =>
          i % 2 === 0
            ? fetch(`${running.url}/api/v1/data/articles/layers`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(article('layers', title)) }).then((r) => expect(r.status).toBe(200))
            : fetch(`${running.url}/graphql`, {
                method: 'POST',
                headers: { 'Content-Type': 'application/json' },
                body: JSON.stringify({ query: 'mutation($item: JSON!) { updateArticles(id: "layers", item: $item) { id title } }', variables: { item: article('layers', title) } }),
              }).then(async (r) => expect((await r.json()) as object).toEqual({ data: { updateArticles: { id: 'layers', title } } })),
        ),
      );
      const final = (await (await fetch(`${running.url}/api/v1/data/articles/layers`)).json()) as { title: string };
      expect(titles).toContain(final.title);
      expect(final).toEqual(article('layers', final.title));
      const graphql = (await (await fetch(`${running.url}/graphql?query=${encodeURIComponent('{ articles(id: "layers") { title } }')}`)).json()) as { data: { articles: Array<{ title: string }> } };
      expect(graphql.data.articles[0]!.title).toBe(final.title);
    } finally {
      await running.stop();
    }
  });

  it('a saved package passes pkg package validate', async () => {
    const workdir = join(work.path, 'saved');
    const running = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    let path: string;
    try {
      expect((await post(running.url, article('saved-one'))).status).toBe(201);
      const saved = (await (await fetch(`${running.url}/package/example-site/save`, { method: 'POST' })).json()) as { path: string; version: string };
      expect(saved.version).toBe('1.0.1');
      path = saved.path;
    } finally {
      await running.stop();
    }
    const validated = runPkg(['package', 'validate', path]);
    expect(validated.stdout).toMatch(/Result: valid/);
    expect(validated.status).toBe(0);
  });
});
