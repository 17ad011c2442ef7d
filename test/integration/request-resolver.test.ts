import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RequestResolver } from '../../src/application/serving/request-target.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { startReactor } from '../support/reactor-fixture.js';

const site = demoPackage({
  'content/page.html': '<p>page</p>',
  'data/items.json': JSON.stringify([{ id: 'a' }]),
  'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
  'routes.json': JSON.stringify({
    routes: [
      { path: '/', resource: 'content/index.html' },
      { path: '/page', resource: 'content/page.html' },
      { path: '/items', dataset: 'items' },
      { path: '/run', handler: 'scripts/run.js', method: 'POST' },
    ],
  }),
});
const other = demoPackage({ 'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'other' }), 'content/index.html': '<p>other</p>' });

let fixture: Awaited<ReturnType<typeof startReactor>>;
let resolver: RequestResolver;
beforeAll(async () => {
  fixture = await startReactor(new MemoryOpener().add('site', site).add('other', other), [{ source: 'site' }, { source: 'other' }], { cors: ['https://app.example'] });
  resolver = new RequestResolver(fixture.reactor, (mount) => mount.prefix === '/');
});
afterAll(() => fixture.stop());

describe('a request resolved once, without HTTP', () => {
  it('names what answers each path and method', () => {
    const kinds = (method: string, path: string) => {
      const { target } = resolver.resolve(method, path);
      return { kind: target.kind, ...('mount' in target && target.mount ? { mount: target.mount.prefix } : {}) };
    };
    expect(kinds('GET', '/page')).toEqual({ kind: 'file', mount: '/' });
    expect(kinds('GET', '/other/')).toEqual({ kind: 'file', mount: '/other/' });
    expect(kinds('PUT', '/page')).toEqual({ kind: 'content', mount: '/' });
    expect(kinds('GET', '/graphql')).toEqual({ kind: 'graphql', mount: '/' });
    // A mount without GraphQL: /graphql is an ordinary path there.
    expect(kinds('GET', '/other/graphql')).toEqual({ kind: 'file', mount: '/other/' });
    expect(kinds('GET', '/introspect/status')).toEqual({ kind: 'introspection' });
    expect(kinds('GET', '/package/other/status')).toEqual({ kind: 'package', mount: '/other/' });
    expect(resolver.resolve('GET', '/package/nobody/status').target).toMatchObject({ kind: 'package', name: 'nobody' });
  });

  it('reads a package name in the path as the client spelled it, decoded once: `%25` is a percent sign, never an escape to decode again', () => {
    expect(resolver.resolve('GET', '/package/%25/logs').target).toMatchObject({ kind: 'package', name: '%' });
    expect(resolver.resolve('GET', '/package/%2541/logs').target).toMatchObject({ kind: 'package', name: '%41' });
    // No endpoint named: a path of the root mount like any other (a 404 there).
    expect(resolver.resolve('GET', '/package/%25/').target).toMatchObject({ kind: 'file', mount: { prefix: '/' } });
    expect(resolver.resolve('GET', '/package/%6fther/status').target).toMatchObject({ kind: 'package', mount: { prefix: '/other/' } });
  });

  it('reads datasets as collections and items, also through a dataset route', () => {
    expect(resolver.resolve('GET', '/api/v1/data/items').target).toMatchObject({ kind: 'data', dataset: 'items' });
    expect(resolver.resolve('PUT', '/api/v1/data/items/a').target).toMatchObject({ kind: 'data', dataset: 'items', item: 'a' });
    expect(resolver.resolve('POST', '/items').target).toMatchObject({ kind: 'data', dataset: 'items' });
    expect(resolver.resolve('GET', '/api/v1/data/items').target).not.toHaveProperty('item');
  });

  it('refuses with typed errors: a path that steps outside, an overlong one, a handler route', () => {
    expect(resolver.resolve('GET', '/%2e%2e/metadata.json').target).toMatchObject({ kind: 'refused', error: { name: 'BadRequestPathError' } });
    expect(resolver.resolve('GET', `/${'a'.repeat(5000)}%20`).target).toMatchObject({ kind: 'refused', error: { name: 'RequestPathTooLongError' } });
    expect(resolver.resolve('POST', '/run').target).toMatchObject({ kind: 'refused', error: { name: 'HandlerNotSupportedError' } });
  });

  it('carries the origins that may write, and no access rule where nothing is authenticated', () => {
    const resolved = resolver.resolve('POST', '/api/v1/data/items');
    expect(resolved.cors).toEqual(['https://app.example']);
    expect(resolved.access).toBeUndefined();
    expect(resolver.resolve('GET', '/%00').cors).toEqual(['https://app.example']);
  });

  it('gives a cached file with its target: the hot path looks nothing up twice', async () => {
    expect(resolver.resolve('GET', '/page').target).not.toHaveProperty('file');
    await fixture.reactor.mounts.match('/page')!.mount.pkg.lookup('/page');
    expect(resolver.resolve('GET', '/page').target).toMatchObject({ kind: 'file', file: { contentType: 'text/html; charset=utf-8', etag: expect.stringMatching(/^"[0-9a-f]{64}"$/) } });
  });
});
