/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { appendFileSync, cpSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { get as httpGet, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { eventually } from '../support/eventually.js';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { startServe } from '../support/serve-process.js';
import { connect } from 'node:net';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-watch-');
const at = (name: string) => join(work.path, name);
afterAll(() => work.remove());

describe('pkg reactor serve --watch', () => {
  it('serves added files, data and configuration changes on the next request; an edit that does not load is reported and the last good version keeps serving', async () => {
    const site = at('site');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    const running = await startServe([site, '--watch', '--workdir', at('work')]);
    try {
      expect((await fetch(`${running.url}/news.html`)).status).toBe(404);
      writeFileSync(join(site, 'content/news.html'), '<p>news</p>');
      // The very next request, sent at once: not a moment later, once the edits settle.
      expect((await fetch(`${running.url}/news.html`)).status).toBe(200);
      // Routes are generated again: the new page answers without its extension too.
      expect((await fetch(`${running.url}/news`)).status).toBe(200);
      const articles = JSON.parse(readFileSync(join(site, 'data/articles.json'), 'utf8')) as Array<Record<string, unknown>>;
      writeFileSync(join(site, 'data/articles.json'), JSON.stringify([...articles, { id: 'added-on-disk', title: 'Added', body: 'b' }]));
      expect(((await (await fetch(`${running.url}/api/v1/data/articles`)).json()) as Array<{ id: string }>).map((item) => item.id)).toContain('added-on-disk');
      // A stream of edits, each read back at once: each request sees the edit before it.
      for (let version = 0; version < 20; version++) {
        writeFileSync(join(site, 'content/often.txt'), `version ${version}`);
        expect(await (await fetch(`${running.url}/often.txt`)).text()).toBe(`version ${version}`);
      }
      const metadata = readFileSync(join(site, 'metadata.json'), 'utf8');
      writeFileSync(join(site, 'metadata.json'), '{ broken');
      await eventually(async () => running.stderr().includes('changed and no longer loads: ConfigParseError: metadata.json'), 'the broken edit is reported');
      expect((await fetch(`${running.url}/news.html`)).status).toBe(200);
      const validity = ((await (await fetch(`${running.url}/api/v1/introspect/content-validity`)).json()) as { contentValidity: Array<{ valid: boolean; reason?: string[] }> }).contentValidity[0]!;
      expect(validity).toMatchObject({ valid: false, reason: [expect.stringMatching(/no longer loads.*the last good version keeps serving/)] });
      writeFileSync(join(site, 'metadata.json'), metadata);
      await eventually(async () => ((await (await fetch(`${running.url}/api/v1/introspect/content-validity`)).json()) as { contentValidity: Array<{ valid: boolean }> }).contentValidity[0]!.valid, 'the fixed package is valid again');
      // Without --live-reload, pages are served as they are.
      expect(await (await fetch(`${running.url}/`)).text()).not.toContain('live-reload');
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });

  it('keeps watching after a link loop that came and went: later edits are served and the reactor is ready again', async () => {
    const site = at('looped');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    const running = await startServe([site, '--watch', '--workdir', at('looped-work')]);
    try {
      symlinkSync('loop-b', join(site, 'content/loop-a'));
      symlinkSync('loop-a', join(site, 'content/loop-b'));
      await eventually(async () => running.stderr().includes('no longer loads: UnsafeEntryError'), 'the loop is reported');
      rmSync(join(site, 'content/loop-a'));
      rmSync(join(site, 'content/loop-b'));
      await eventually(async () => (await fetch(`${running.url}/readyz`)).status === 200, 'ready again once the links are gone');
      writeFileSync(join(site, 'content/after.txt'), 'after the loop');
      await eventually(async () => (await fetch(`${running.url}/after.txt`)).status === 200, 'an edit after the loop is served');
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });

  it('writes made while the package is loaded again are all kept, served at once and after a restart', async () => {
    const site = at('writes');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    const args = [site, '--watch', '--workdir', at('writes-work')];
    let running = await startServe(args);
    const acknowledged: string[] = [];
    try {
      // Three writers at once, so writes are in flight and queued whenever a reload starts.
      const writes = Promise.all(
        [0, 1, 2].map(async (writer) => {
          for (let i = 0; i < 20; i++) {
            const id = `w${writer}-${i}`;
            const answer = await fetch(`${running.url}/api/v1/data/articles`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id, title: 'T', body: 'b' }) });
            if (answer.status === 201) acknowledged.push(id);
          }
        }),
      );
      // Edits that reload the package while the writes go on.
      for (let i = 0; i < 6; i++) {
        writeFileSync(join(site, `content/edit-${i}.html`), `<p>${i}</p>`);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      await writes;
      expect(acknowledged).toHaveLength(60);
      await eventually(async () => (await fetch(`${running.url}/edit-5.html`)).status === 200, 'the last edit is served');
      const served = ((await (await fetch(`${running.url}/api/v1/data/articles`)).json()) as Array<{ id: string }>).map((item) => item.id);
      expect(acknowledged.filter((id) => !served.includes(id))).toEqual([]);
    } finally {
      expect(await running.stop()).toBe(0);
    }
    running = await startServe(args);
    try {
      const served = ((await (await fetch(`${running.url}/api/v1/data/articles`)).json()) as Array<{ id: string }>).map((item) => item.id);
      expect(acknowledged.filter((id) => !served.includes(id))).toEqual([]);
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });

  it('--live-reload adds its script to UTF-8 pages only, keeping a BOM, and sends a UTF-16 page as it is', async () => {
    const site = at('encodings');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html><body><p>h\u00e9llo</p></body></html>', 'utf16le')]);
    writeFileSync(join(site, 'content/u16.html'), utf16);
    writeFileSync(join(site, 'content/bom.html'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>h\u00e9llo</p>')]));
    const running = await startServe([site, '--watch', '--live-reload']);
    try {
      expect(Buffer.from(await (await fetch(`${running.url}/u16.html`)).arrayBuffer()).equals(utf16)).toBe(true);
      const bom = Buffer.from(await (await fetch(`${running.url}/bom.html`)).arrayBuffer());
      expect([...bom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(bom.toString('utf8')).toContain('<p>h\u00e9llo</p><script>new EventSource');
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });

  it('--live-reload lets go of the connection of every page that goes away', async () => {
    const running = await startServe([EXAMPLE_SITE, '--watch', '--live-reload']);
    try {
      const openFiles = () => readdirSync(`/proc/${running.child.pid}/fd`).length;
      const before = openFiles();
      const pages = await Promise.all(
        Array.from({ length: 50 }, () => new Promise<ClientRequest>((resolve) => {
          const page = httpGet(`${running.url}/__pkg/live-reload`, { agent: false }, (stream) => {
            stream.resume();
            resolve(page);
          });
        })),
      );
      expect(openFiles()).toBeGreaterThanOrEqual(before + 50);
      for (const page of pages) page.destroy();
      await eventually(async () => openFiles() <= before, 'the reactor closed the 50 connections');
      // Not well-formed HTTP/1.1 is refused there as anywhere.
      const port = new URL(running.url).port;
      const twoHosts = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end('GET /__pkg/live-reload HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'));
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(twoHosts).toMatch(/^HTTP\/1\.1 400 /);
      // The stream is only read; another method is no package path either.
      for (const method of ['HEAD', 'PUT', 'DELETE']) {
        const answer = await fetch(`${running.url}/__pkg/live-reload`, { method });
        expect([method, answer.status, answer.headers.get('allow')]).toEqual([method, 405, 'GET']);
      }
    } finally {
      await running.stop();
    }
  });

  it('--live-reload needs --watch', () => {
    const run = runPkg(['reactor', 'serve', EXAMPLE_SITE, '--live-reload']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/UsageError: --live-reload .* give --watch too/);
  });
});

describe('--live-reload in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('an open page reloads itself after an edit, and a .cap is never given the script', async () => {
    const site = at('live');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    const running = await startServe([site, '--watch', '--live-reload', '--workdir', at('live-work')]);
    try {
      const page = await browser.newPage();
      await page.goto(`${running.url}/about`, { waitUntil: 'load' });
      await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
      const about = join(site, 'content/about.html');
      writeFileSync(about, readFileSync(about, 'utf8').replace('</h1>', ' (edited)</h1>'));
      await page.waitForFunction(() => document.querySelector('h1')?.textContent?.includes('(edited)'), undefined, { timeout: 10_000 });
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBeUndefined();
      // The page's stylesheet too: a browser that kept it for a year would reload the page over the old one.
      appendFileSync(join(site, 'content/css/style.css'), '\nbody { background: rgb(255, 0, 0); }\n');
      await page.waitForFunction(() => getComputedStyle(document.body).backgroundColor === 'rgb(255, 0, 0)', undefined, { timeout: 10_000 });
      expect((await fetch(`${running.url}/css/style.css`)).headers.get('cache-control')).toBe('no-cache');
    } finally {
      await running.stop();
    }
    expect(runPkg(['package', 'pack', EXAMPLE_SITE, '-o', work.path]).status).toBe(0);
    const cap = await startServe([at('example-site-1.0.0.cap'), '--watch', '--live-reload', '--cache-control', 'public, max-age=60']);
    try {
      expect(await (await fetch(`${cap.url}/`)).text()).not.toContain('live-reload');
      // Given, it is what is sent, --watch or not.
      expect((await fetch(`${cap.url}/css/style.css`)).headers.get('cache-control')).toBe('public, max-age=60');
    } finally {
      await cap.stop();
    }
  });
});
