/// <reference lib="dom" />
import { describe, expect, it } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openOwnOriginPage } from '../support/chromium.js';
import { ROOT } from '../support/paths.js';
import { exampleSiteInBrowser } from '../support/browser-fixture.js';

const ARTIFACTS = join(ROOT, 'test-artifacts');

/** CodeMirror 5, which GraphiQL 4's editors are, keeps its instance on its wrapper element. */
interface CodeMirrorElement {
  CodeMirror: { getValue(): string };
}

const site = exampleSiteInBrowser();

describe('GraphiQL with the network blocked', () => {
  it('loads everything from the reactor, and runs a query typed into its editor', async () => {
    const origin = new URL(site.reactor.url).origin;
    // Only the reactor's own origin is reachable: anything else is aborted, and counted.
    const { page, blocked, loaded, failures, consoleErrors } = await openOwnOriginPage(site.browser, origin, { width: 1400, height: 800 });

    await page.goto(`${site.reactor.url}/graphql`, { waitUntil: 'networkidle' });
    await page.locator('.graphiql-container').waitFor();
    expect(await page.locator('#fallback').isHidden()).toBe(true);
    expect(loaded.filter((path) => path.startsWith('/__pkg/graphiql/')).sort()).toEqual([
      '/__pkg/graphiql/graphiql-4.1.2.min.css',
      '/__pkg/graphiql/graphiql-4.1.2.min.js',
      '/__pkg/graphiql/react-18.3.1.production.min.js',
      '/__pkg/graphiql/react-dom-18.3.1.production.min.js',
    ]);

    // Typed as a person would: CodeMirror closes each brace as it is opened, and steps over a typed closing one.
    const editor = page.locator('.graphiql-query-editor .CodeMirror');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ articles { id title } }', { delay: 20 });
    await page.keyboard.press('Escape'); // closes the completion list, if open
    expect(await editor.evaluate((element) => (element as unknown as CodeMirrorElement).CodeMirror.getValue())).toBe('{ articles { id title } }');
    await page.locator('.graphiql-execute-button').click();

    const result = page.locator('.graphiql-response .CodeMirror');
    await page.waitForFunction(() => ((document.querySelector('.graphiql-response .CodeMirror') as unknown as CodeMirrorElement | null)?.CodeMirror.getValue() ?? '').includes('Hello, world'), undefined, { timeout: 10_000 });
    const data = JSON.parse(await result.evaluate((element) => (element as unknown as CodeMirrorElement).CodeMirror.getValue())) as { data: { articles: Array<{ id: string; title: string }> } };
    expect(data.data.articles).toHaveLength(3);
    expect(data.data.articles[0]).toEqual({ id: 'hello-world', title: 'Hello, world' });
    expect(site.reactor.stdout()).toMatch(/POST \/graphql -> 200/);

    // Everything the page fetched, by the browser's own account, came from the reactor.
    const resources = await page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name));
    expect(resources.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
    expect(consoleErrors).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'graphiql-offline.png') });
  }, 60_000);

  it("keeps the plain form, which runs queries, when GraphiQL's script does not load", async () => {
    const page = await site.browser.newPage();
    const consoleErrors: string[] = [];
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.route('**/__pkg/graphiql/graphiql-*.js', (route) => route.abort('blockedbyclient'));
    await page.goto(`${site.reactor.url}/graphql?query=${encodeURIComponent('{ articles(limit: 1) { title } }')}`, { waitUntil: 'networkidle' });
    expect(await page.locator('#graphiql').isHidden()).toBe(true);
    expect(await page.locator('#query').inputValue()).toBe('{ articles(limit: 1) { title } }');
    await page.locator('#fallback button[type=submit]').click();
    await page.waitForFunction(() => document.getElementById('result')!.textContent!.includes('Hello, world'));
    expect(await page.locator('#result').textContent()).toMatch(/^200 OK\n/);
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});
