import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { PORT, USE_CASE } from '../../src/composition/service-ids.js';
import { ROOT, temporaryDirectory } from '../support/paths.js';
import { productionContainer, swap } from '../support/production-container.js';
import { startReactorIn } from '../support/reactor-fixture.js';
import { MemoryOverlayStore } from '../fakes/memory-overlay-store.js';

// examples/composite routes /style.css to the theme's content/theme.css: it needs examples/theme to load.
const COMPOSITE = join(ROOT, 'examples/composite');
const THEME = join(ROOT, 'examples/theme');
const THEME_CSS = readFileSync(join(THEME, 'content/theme.css'), 'utf8');

const work = temporaryDirectory('cap-composite-reactor-');
const store = join(work.path, 'store');
let bundledCap: string;

beforeAll(async () => {
  mkdirSync(store);
  const pack = productionContainer().get(USE_CASE.PackPackage);
  // A store is a directory of .cap files: the theme packed into it is all it needs.
  await pack.execute({ source: THEME, outputDirectory: store, force: false });
  bundledCap = (await pack.execute({ source: COMPOSITE, outputDirectory: work.path, force: false, bundle: { store } })).path;
});
afterAll(() => work.remove());

/** A reactor wired as production wires it, but for its overlays, kept in memory. */
const start = (source: string, settings: { store?: string; workdir: string }) =>
  startReactorIn(productionContainer(swap(PORT.OverlayStore, new MemoryOverlayStore())), [{ source }], settings);

describe('a composite package in a reactor built by the test fixture', () => {
  it('loads its dependency from the store and serves the theme’s file at the route that names it', async () => {
    const fixture = await start(COMPOSITE, { store, workdir: join(work.path, 'from-store') });
    try {
      expect(fixture.failures).toEqual([]);
      const style = await request(fixture.http).get('/style.css').expect(200);
      expect(style.text).toBe(THEME_CSS);
      expect(style.headers['content-type']).toMatch(/^text\/css/);
      expect((await request(fixture.http).get('/').expect(200)).text).toContain('<h1>A composite package</h1>');
      // The theme's exported file is also at its own path; what it keeps private is not served.
      expect((await request(fixture.http).get('/theme.css').expect(200)).text).toBe(THEME_CSS);
      await request(fixture.http).get('/notes.txt').expect(404);
    } finally {
      await fixture.stop();
    }
  });

  it('loads a .cap with its dependency bundled, with no store at all', async () => {
    const fixture = await start(bundledCap, { workdir: join(work.path, 'bundled') });
    try {
      expect(fixture.failures).toEqual([]);
      expect((await request(fixture.http).get('/style.css').expect(200)).text).toBe(THEME_CSS);
    } finally {
      await fixture.stop();
    }
  });
});
