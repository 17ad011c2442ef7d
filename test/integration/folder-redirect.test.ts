import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { startReactor } from '../support/reactor-fixture.js';

const site = demoPackage({
  'content/docs/index.html': '<a href="guide.html">guide</a>',
  'content/a b/index.html': '<p>spaced</p>',
  'content/assets/app.css': 'p {}',
  'content/routed/index.html': '<p>routed folder</p>',
  'content/page.html': '<p>page</p>',
});
const app = demoPackage({ 'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'app' }), 'content/index.html': '<p>app home</p>' });

let fixture: Awaited<ReturnType<typeof startReactor>>;
beforeAll(async () => {
  const routed = {
    ...site,
    'routes.json': JSON.stringify({ routes: [{ path: '/', resource: 'content/index.html' }, { path: '/routed', resource: 'content/page.html' }] }),
  };
  fixture = await startReactor(new MemoryOpener().add('site', routed).add('app', app), [{ source: 'site' }, { prefix: '/app/', source: 'app' }]);
});
afterAll(() => fixture.stop());

describe('a folder or a mount asked for without its trailing slash', () => {
  it('answers GET and HEAD with 301 to the slashed path, the query kept', async () => {
    for (const [path, location] of [
      ['/docs', '/docs/'],
      ['/docs?lang=en&x=%20', '/docs/?lang=en&x=%20'],
      ['/a%20b', '/a%20b/'],
      ['/app', '/app/'],
      ['/app?from=menu', '/app/?from=menu'],
    ]) {
      const answer = await request(fixture.http).get(path!).redirects(0);
      expect([path, answer.status, answer.headers.location]).toEqual([path, 301, location]);
      expect((await request(fixture.http).head(path!).redirects(0)).status).toBe(301);
    }
    expect((await request(fixture.http).get('/docs/').expect(200)).text).toBe('<a href="guide.html">guide</a>');
    expect((await request(fixture.http).get('/app/').expect(200)).text).toBe('<p>app home</p>');
  });

  it("sends each mount's API page without its slash (/api/v1) to the page, unless the package serves that path", async () => {
    for (const [path, location] of [
      ['/api/v1', '/api/v1/'],
      ['/api/v1?x=1', '/api/v1/?x=1'],
      ['/app/api/v1', '/app/api/v1/'],
    ]) {
      const answer = await request(fixture.http).get(path!).redirects(0);
      expect([path, answer.status, answer.headers.location]).toEqual([path, 301, location]);
    }
    const own = demoPackage({ 'content/api/v1': 'its own v1' });
    const started = await startReactor(new MemoryOpener().add('own', own), [{ source: 'own' }]);
    try {
      expect((await request(started.http).get('/api/v1').expect(200)).text).toBe('its own v1');
    } finally {
      await started.stop();
    }
  });

  it('leaves what is not a folder with an index as it was: a declared route, a folder without index.html, other methods', async () => {
    expect((await request(fixture.http).get('/routed').expect(200)).text).toBe('<p>page</p>');
    await request(fixture.http).get('/assets').expect(404);
    await request(fixture.http).get('/nowhere').expect(404);
    expect((await request(fixture.http).delete('/docs')).status).not.toBe(301);
  });
});
