import { afterAll, beforeAll } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { EXAMPLE_SITE } from './paths.js';
import { startServe, type ServeProcess } from './serve-process.js';

/** The example site served by a real reactor, and a headless Chromium, for the whole file; both stopped after it. Read them inside tests. */
export function exampleSiteInBrowser(): { readonly browser: Browser; readonly reactor: ServeProcess } {
  const held = {} as { browser: Browser; reactor: ServeProcess };
  beforeAll(async () => {
    held.reactor = await startServe([EXAMPLE_SITE]);
    held.browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await held.browser?.close();
    await held.reactor?.stop();
  });
  return held;
}
