/// <reference lib="dom" />
import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { openOwnOriginPage } from '../support/chromium.js';
import { ROOT } from '../support/paths.js';
import { exampleSiteInBrowser } from '../support/browser-fixture.js';

const site = exampleSiteInBrowser();

describe('the API page with the network blocked', () => {
  it('shows the mount\'s OpenAPI description with Swagger UI, everything from the reactor', async () => {
    const origin = new URL(site.reactor.url).origin;
    const { page, blocked, loaded, failures, consoleErrors } = await openOwnOriginPage(site.browser, origin, { width: 1400, height: 900 });

    await page.goto(`${site.reactor.url}/api/v1/`, { waitUntil: 'networkidle' });
    await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 15_000 });
    expect(await page.locator('#fallback').isHidden()).toBe(true);
    const paths = await page.locator('.opblock-summary-path').allInnerTexts();
    expect(paths.map((path) => path.replace(/\u200b/g, ''))).toEqual(expect.arrayContaining(['/api/v1/data/articles', '/api/v1/data/articles/{id}', '/api/v1/data/articles/{id}/history']));
    expect(await page.locator('.swagger-ui .info .title').innerText()).toContain('example-site data API');
    expect(loaded).toEqual(expect.arrayContaining(['/__pkg/api-docs/swagger-ui-5.35.0-bundle.js', '/__pkg/api-docs/swagger-ui-5.35.0.css', '/api/v1/openapi.json']));
    await page.screenshot({ path: join(ROOT, 'test-artifacts', 'api-docs.png') });
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});
