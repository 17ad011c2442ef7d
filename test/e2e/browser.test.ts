/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { EXAMPLE_SITE, ROOT } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

const ARTIFACTS = join(ROOT, 'test-artifacts');

let browser: Browser;
let reactor: ServeProcess;
beforeAll(async () => {
  reactor = await startServe([EXAMPLE_SITE]);
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await reactor?.stop();
});

describe('the example site in a real browser', () => {
  it('loads every sub-resource without errors and renders the articles from the dataset', async () => {
    const page = await browser.newPage();
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
    await page.goto(`${reactor.url}/`, { waitUntil: 'networkidle' });
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
    await page.goto(`${reactor.url}/about`, { waitUntil: 'networkidle' });
    expect(await page.title()).toBe('About the example site');
    expect(failures).toEqual([]);
  }, 60_000);
});
