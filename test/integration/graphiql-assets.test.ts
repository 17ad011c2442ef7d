import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import request from 'supertest';
import { BundledAssets, GRAPHIQL_SET } from '../../src/adapters/http/bundled-assets.js';
import { GRAPHIQL_ASSETS } from '../../src/adapters/http/graphql/graphiql-asset-list.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { SETTINGS, startReactor } from '../support/reactor-fixture.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
/** supertest body parser that keeps the raw bytes. */
const binary = (res: unknown, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  (res as NodeJS.ReadableStream).on('data', (c: Buffer) => chunks.push(c));
  (res as NodeJS.ReadableStream).on('end', () => done(null, Buffer.concat(chunks)));
};

const withData = (name: string) =>
  demoPackage({
    'metadata.json': JSON.stringify({ ...VALID_METADATA, name }),
    'data/items.json': JSON.stringify([{ id: 'a' }, { id: 'b' }]),
    'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
  });

let fixture: Awaited<ReturnType<typeof startReactor>>;
beforeAll(async () => {
  // Mounted below a prefix: GraphiQL's files are still at the host root.
  const opener = new MemoryOpener().add('site', withData('site')).add('other', withData('other'));
  fixture = await startReactor(opener, [
    { source: 'site', prefix: '/site/' },
    { source: 'other', prefix: '/other/' },
  ]);
});
afterAll(() => fixture.stop());

describe("GraphiQL's files, from the reactor itself", () => {
  it('are all the page names, each on the same origin, answered with type, strong ETag, cache header, and 304', async () => {
    const page = await request(fixture.http).get('/site/graphql').set('Accept', BROWSER).expect(200);
    const urls = [...page.text.matchAll(/\b(?:src|href)="([^"]*)"/g)].map(([, url]) => url!);
    expect(urls).toHaveLength(Object.keys(GRAPHIQL_ASSETS).length);
    for (const url of urls) {
      // Same origin: a path from the host root, no scheme, no host.
      expect(url).toMatch(/^\/__pkg\/graphiql\/[a-z0-9.-]+$/);
      const response = await request(fixture.http).get(url).buffer(true).parse(binary).expect(200);
      const body = response.body as Buffer;
      expect(response.headers['content-type']).toBe(url.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      expect(response.headers['etag']).toBe(`"${createHash('sha256').update(body).digest('hex')}"`);
      expect(response.headers['cache-control']).toBe(SETTINGS.cacheControl);
      expect(Number(response.headers['content-length'])).toBe(body.length);
      expect(body.length).toBeGreaterThan(10_000);
      const notModified = await request(fixture.http).get(url).set('If-None-Match', response.headers['etag']!).expect(304);
      expect(notModified.headers['etag']).toBe(response.headers['etag']);
      expect(notModified.headers['cache-control']).toBe(SETTINGS.cacheControl);
      const head = await request(fixture.http).head(url).expect(200);
      expect(head.headers['etag']).toBe(response.headers['etag']);
    }
    // The same bytes at every mount: the page of another mount names the same files.
    const other = await request(fixture.http).get('/other/graphql').set('Accept', BROWSER).expect(200);
    expect([...other.text.matchAll(/\b(?:src|href)="([^"]*)"/g)].map(([, url]) => url!)).toEqual(urls);
  });

  it('hold the pinned builds: GraphiQL over global React 18', async () => {
    const script = await request(fixture.http).get(`/__pkg/graphiql/${GRAPHIQL_ASSETS.graphiql.name}`).expect(200);
    expect(script.text).toContain('.GraphiQL=t(e.React,e.ReactDOM)');
    const react = await request(fixture.http).get(`/__pkg/graphiql/${GRAPHIQL_ASSETS.react.name}`).expect(200);
    expect(react.text).toContain('@license React');
    expect(react.text).toContain('"18.3.1"');
  });

  it('answers a name that is not one of them with 404, other methods with 405, and logs each', async () => {
    // Decoded once like every path: a step outside is refused before any name is looked up.
    expect((await request(fixture.http).get('/__pkg/graphiql/../../etc/passwd').expect(400)).body.error.code).toBe('BAD_PATH');
    const missing = await request(fixture.http).get('/__pkg/graphiql/passwd').expect(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    await request(fixture.http).get('/__pkg/graphiql/graphiql.min.js').expect(404);
    const post = await request(fixture.http).post(`/__pkg/graphiql/${GRAPHIQL_ASSETS.graphiql.name}`).send('x').expect(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
    expect(fixture.lines.join('\n')).toMatch(new RegExp(`GET /__pkg/graphiql/${GRAPHIQL_ASSETS.graphiqlCss.name.replace(/\./g, '\\.')} -> 200`));
  });
});

describe('BundledAssets', () => {
  it('reads a file on its first request only, and again after a failed read', async () => {
    const reads: string[] = [];
    let fail = true;
    const assets = new BundledAssets('no-cache', GRAPHIQL_SET, async (asset) => {
      reads.push(asset.name);
      if (fail) throw new Error('disk');
      return new TextEncoder().encode(`/* ${asset.name} */`);
    });
    expect(reads).toEqual([]);
    expect(assets.file('nothing.js')).toBeUndefined();
    await expect(assets.file(GRAPHIQL_ASSETS.react.name)).rejects.toThrow('disk');
    fail = false;
    const file = await assets.file(GRAPHIQL_ASSETS.react.name)!;
    expect(await assets.file(GRAPHIQL_ASSETS.react.name)).toBe(file);
    expect(reads).toEqual([GRAPHIQL_ASSETS.react.name, GRAPHIQL_ASSETS.react.name]);
    expect(file).toMatchObject({ contentType: 'text/javascript; charset=utf-8', cacheControl: 'no-cache', size: file.body!.length });
  });
});
