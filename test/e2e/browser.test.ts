/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { EXAMPLE_SITE, ROOT, temporaryDirectory } from '../support/paths.js';
import { startServe } from '../support/serve-process.js';
import { exampleSiteInBrowser } from '../support/browser-fixture.js';

const ARTIFACTS = join(ROOT, 'test-artifacts');

const example = exampleSiteInBrowser();

describe('the example site in a real browser', () => {
  it('loads every sub-resource without errors and renders the articles from the dataset', async () => {
    const page = await example.browser.newPage();
    const failures: string[] = [];
    const consoleErrors: string[] = [];
    const loaded: string[] = [];
    page.on('requestfailed', (request) => failures.push(`${request.url()}: ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      loaded.push(new URL(response.url()).pathname);
      if (response.status() >= 400) failures.push(`${response.url()}: HTTP ${response.status()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${example.reactor.url}/`, { waitUntil: 'networkidle' });
    await page.waitForSelector('#articles li strong');
    expect(await page.locator('#articles li').count()).toBe(3);
    expect(await page.locator('#articles li strong').first().textContent()).toBe('Hello, world');
    expect(loaded).toEqual(expect.arrayContaining(['/', '/css/style.css', '/js/app.js', '/images/logo.png', '/api/v1/data/articles']));
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('header')!).borderBottomStyle)).toBe('solid');
    expect(await page.evaluate(() => (document.querySelector('header img') as HTMLImageElement).naturalWidth)).toBe(96);
    expect(failures).toEqual([]);
    expect(consoleErrors).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'example-site.png'), fullPage: true });
    await page.goto(`${example.reactor.url}/about`, { waitUntil: 'networkidle' });
    expect(await page.title()).toBe('About the example site');
    expect(failures).toEqual([]);
  }, 60_000);
});

/** A page of another site (another port is another origin) that tries to write to the reactor `?target=` names as soon as it loads. */
async function hostilePages(): Promise<{ origin: string; at: (target: string) => string; server: Server }> {
  const html = (target: string) => `<!doctype html><title>elsewhere</title>
<form id="save" method="POST" action="${target}/package/example-site/save" target="sink"></form><iframe name="sink"></iframe>
<script>
  window.outcome = (async () => {
    const body = JSON.stringify({ id: 'planted', title: 'planted', body: 'by another site' });
    await fetch('${target}/api/v1/data/articles', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body }).catch(() => undefined);
    document.getElementById('save').submit();
    try {
      const response = await fetch('${target}/api/v1/data/articles', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: 'with-cors', title: 't', body: 'b' }) });
      return response.status;
    } catch (error) {
      return 'blocked';
    }
  })();
</script>`;
  const server = createServer((request, response) => response.writeHead(200, { 'Content-Type': 'text/html' }).end(html(new URL(request.url ?? '/', 'http://x').searchParams.get('target') ?? '')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return { origin, at: (target) => `${origin}/?target=${encodeURIComponent(target)}`, server };
}

describe('a page of another site in a real browser', () => {
  const work = temporaryDirectory('cap-browser-');
  let hostile: Awaited<ReturnType<typeof hostilePages>>;
  beforeAll(async () => {
    hostile = await hostilePages();
  });
  afterAll(() => {
    hostile.server.close();
    work.remove();
  });

  it('cannot write to a reactor on this machine: not a text/plain POST, not a form to save', async () => {
    const site = join(work.path, 'site');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    const target = await startServe([site, '--workdir', join(work.path, 'refusing')]);
    try {
      const page = await example.browser.newPage();
      await page.goto(hostile.at(target.url), { waitUntil: 'load' });
      expect(await page.evaluate(() => (window as unknown as { outcome: Promise<unknown> }).outcome)).toBe('blocked');
      await page.waitForTimeout(300);
      const ids = ((await (await fetch(`${target.url}/api/v1/data/articles`)).json()) as Array<{ id: string }>).map((item) => item.id);
      expect(ids).not.toContain('planted');
      expect(ids).not.toContain('with-cors');
      expect(target.stdout()).toMatch(/POST \/api\/v1\/data\/articles -> 403/);
      expect(target.stdout()).toMatch(/POST \/package\/example-site\/save -> 403/);
      expect(target.stdout()).not.toMatch(/-> 20[01]/);
    } finally {
      await target.stop();
    }
  }, 60_000);

  it('can write when its origin is allowed with --cors, and reads the answer', async () => {
    const site = join(work.path, 'allowing-site');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    const target = await startServe([site, '--workdir', join(work.path, 'allowing'), '--cors', hostile.origin]);
    try {
      const page = await example.browser.newPage();
      await page.goto(hostile.at(target.url), { waitUntil: 'load' });
      expect(await page.evaluate(() => (window as unknown as { outcome: Promise<unknown> }).outcome)).toBe(201);
    } finally {
      await target.stop();
    }
  }, 60_000);
});
