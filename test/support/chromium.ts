import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's headless Chromium, kept off the network this machine does not have. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install the Debian package chromium (.ci/run does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A page that may reach only `origin`, and what it saw: requests blocked, paths loaded, HTTP and network failures, console errors (CSP violations among them). */
export interface WatchedPage {
  page: Page;
  blocked: string[];
  loaded: string[];
  failures: string[];
  consoleErrors: string[];
}

export async function openOwnOriginPage(browser: Browser, origin: string, viewport: { width: number; height: number }): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport });
  const watched: WatchedPage = { page, blocked: [], loaded: [], failures: [], consoleErrors: [] };
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    watched.blocked.push(url);
    return route.abort('blockedbyclient');
  });
  page.on('response', (response) => {
    watched.loaded.push(new URL(response.url()).pathname);
    if (response.status() >= 400) watched.failures.push(`${response.url()}: HTTP ${response.status()}`);
  });
  page.on('requestfailed', (request) => watched.failures.push(`${request.url()}: ${request.failure()?.errorText}`));
  page.on('console', (message) => {
    if (message.type() === 'error') watched.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => watched.consoleErrors.push(error.message));
  return watched;
}
