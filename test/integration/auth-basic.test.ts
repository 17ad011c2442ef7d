import { Validator } from '@seriousme/openapi-schema-validator';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { HtpasswdPasswordHashes } from '../../src/adapters/crypto/htpasswd-password-hashes.js';
import { RequestResolver } from '../../src/application/serving/request-target.js';
import { privateCacheControl } from '../../src/adapters/http/cache-control.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { startReactor } from '../support/reactor-fixture.js';
import { swap } from '../support/production-container.js';
import { PORT } from '../../src/composition/service-ids.js';

const htpasswd = (...args: string[]) => execFileSync('htpasswd', ['-nb', ...args], { encoding: 'utf8' }).trim();
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const directory = mkdtempSync(join(tmpdir(), 'auth-basic-'));
const passwdFile = join(directory, 'htpasswd');
const deployFile = join(directory, 'deploy.json');
const users = () =>
  [
    htpasswd('-B', '-C', '4', 'alice', 'alice-pw'),
    htpasswd('-m', 'bob', 'bob-pw'),
    htpasswd('-s', 'carol', 'carol-pw'),
    htpasswd('-d', 'dave', 'dave-pw'),
    `erin:${execFileSync('openssl', ['passwd', '-1', 'erin-pw'], { encoding: 'utf8' }).trim()}`,
    'plain:plain-pw',
  ].join('\n') + '\n';

class CountingHashes extends HtpasswdPasswordHashes {
  calls = 0;
  override verify(password: string, hash: string): Promise<boolean> {
    this.calls++;
    return super.verify(password, hash);
  }
}
const hashes = new CountingHashes();

const site = demoPackage({
  'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, realm: 'Staff "only"' } } }),
  'content/admin.html': '<p>admin</p>',
  'content/public.html': '<p>public</p>',
  'content/panel/index.html': '<p>panel</p>',
  'data/items.json': JSON.stringify([{ id: 'a' }, { id: 'b' }]),
  'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
  'routes.json': JSON.stringify({
    routes: [
      { path: '/', resource: 'content/index.html' },
      { path: '/admin.html', resource: 'content/admin.html', accessControl: { roles: ['admin'] } },
      { path: '/panel', resource: 'content/panel/index.html', accessControl: { roles: ['admin'] } },
      { path: '/panel/home', resource: 'content/panel/index.html' },
      { path: '/public.html', resource: 'content/public.html', accessControl: { authenticationRequired: false } },
      { path: '/api/v1/data/items', dataset: 'items', accessControl: { roles: ['editor'] } },
    ],
  }),
});
const open = demoPackage({ 'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'open-site' }), 'content/index.html': '<p>open</p>' });

let fixture: Awaited<ReturnType<typeof startReactor>>;
beforeAll(async () => {
  writeFileSync(passwdFile, users());
  writeFileSync(deployFile, JSON.stringify({ authentication: { basicAuth: { passwdFile: 'htpasswd' }, sessionSecret: 'deploy-session-secret-0123456789', roles: { alice: ['admin', 'editor'], bob: ['editor'] } } }));
  const opener = new MemoryOpener().add('site', site).add('open', open);
  fixture = await startReactor(opener, [{ source: 'site' }, { source: 'open' }], { deploy: deployFile, workdir: directory }, swap(PORT.PasswordHashes, hashes));
});
afterAll(async () => {
  await fixture.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('basic authentication', () => {
  it('challenges every unauthenticated request with 401 and the realm', async () => {
    for (const path of ['/', '/index.html', '/style.css', '/nothing-here', '/api/v1/data/items', '/graphql']) {
      const response = await request(fixture.http).get(path).expect(401);
      expect(response.headers['www-authenticate']).toBe('Basic realm="Staff \\"only\\""');
      expect(response.body.error.code).toBe('UNAUTHENTICATED');
    }
    await request(fixture.http).put('/notes.txt').send('x').expect(401);
    await request(fixture.http).head('/').expect(401);
  });

  it.each([
    ['alice', 'alice-pw', 'bcrypt (htpasswd -B)'],
    ['bob', 'bob-pw', 'apr1 (htpasswd -m)'],
    ['carol', 'carol-pw', '{SHA} (htpasswd -s)'],
    ['dave', 'dave-pw', 'crypt(3) (htpasswd -d)'],
    ['erin', 'erin-pw', 'md5-crypt (openssl passwd -1)'],
  ])('accepts %s with the right password (%s) and refuses a wrong one', async (user, password) => {
    const response = await request(fixture.http).get('/').set('Authorization', basic(user, password)).expect(200);
    expect(response.text).toContain('<title>Demo</title>');
    await request(fixture.http).get('/').set('Authorization', basic(user, `${password}x`)).expect(401);
    await request(fixture.http).get('/').set('Authorization', basic(user, '')).expect(401);
  });

  it('never accepts a password stored as plain text, nor an unknown user', async () => {
    await request(fixture.http).get('/').set('Authorization', basic('plain', 'plain-pw')).expect(401);
    await request(fixture.http).get('/').set('Authorization', basic('mallory', 'alice-pw')).expect(401);
  });

  it.each([
    ['no colon', `Basic ${Buffer.from('alicealice-pw').toString('base64')}`],
    ['bad base64', 'Basic !!!not-base64!!!'],
    ['base64 of the wrong length', 'Basic YWxpY2U6YWxpY2UtcH'],
    ['another scheme', 'Bearer abc'],
    ['no credentials', 'Basic'],
    ['a huge header', `Basic ${'A'.repeat(8000)}`],
  ])('answers 401 to a malformed Authorization header: %s', async (_name, header) => {
    const response = await request(fixture.http).get('/').set('Authorization', header).expect(401);
    expect(response.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('remembers a verified credential instead of hashing it per request', async () => {
    const header = basic('alice', 'alice-pw');
    await request(fixture.http).get('/style.css').set('Authorization', header).expect(200);
    const before = hashes.calls;
    for (let i = 0; i < 5; i++) await request(fixture.http).get('/style.css').set('Authorization', header).expect(200);
    expect(hashes.calls).toBe(before);
    // A wrong password is checked every time: failures are never remembered.
    await request(fixture.http).get('/').set('Authorization', basic('alice', 'nope')).expect(401);
    await request(fixture.http).get('/').set('Authorization', basic('alice', 'nope')).expect(401);
    expect(hashes.calls).toBe(before + 2);
  });

  it('gates the introspection endpoints, and /introspect/config shows authEnabled and no secret', async () => {
    for (const path of ['/introspect/status', '/api/v1/introspect/metadata', '/package/demo-site/status']) await request(fixture.http).get(path).expect(401);
    const config = await request(fixture.http).get('/introspect/config').set('Authorization', basic('bob', 'bob-pw')).expect(200);
    expect(config.body.authEnabled).toBe(true);
    expect(JSON.stringify(config.body)).not.toMatch(/secret|htpasswd|\$2y\$/);
  });

  it('leaves a mount without authentication open', async () => {
    await request(fixture.http).get('/open-site/').expect(200);
  });
});

describe('route access control', () => {
  it('answers 403 when the identity lacks the role, and serves it when it has one', async () => {
    await request(fixture.http).get('/admin.html').expect(401);
    expect((await request(fixture.http).get('/admin.html').set('Authorization', basic('bob', 'bob-pw')).expect(403)).body.error.code).toBe('FORBIDDEN');
    await request(fixture.http).get('/admin.html').set('Authorization', basic('alice', 'alice-pw')).expect(200);
  });

  it('holds a file a route protects to that rule on every path that reaches it: its own, its folder, another route without a rule', async () => {
    for (const path of ['/panel', '/panel/index.html', '/panel/', '/panel/home']) {
      await request(fixture.http).get(path).expect(401);
      await request(fixture.http).get(path).set('Authorization', basic('bob', 'bob-pw')).expect(403);
      expect((await request(fixture.http).get(path).set('Authorization', basic('alice', 'alice-pw')).expect(200)).text).toBe('<p>panel</p>');
    }
  });

  it('serves a route that does not require authentication to anyone', async () => {
    expect((await request(fixture.http).get('/public.html').expect(200)).text).toBe('<p>public</p>');
  });

  it('sends files that needed an identity as private, asked again before each use, and public ones as configured', async () => {
    const alice = basic('alice', 'alice-pw');
    for (const path of ['/style.css', '/', '/admin.html', '/panel/home']) {
      const answer = await request(fixture.http).get(path).set('Authorization', alice).expect(200);
      expect([path, answer.headers['cache-control']]).toEqual([path, 'private, no-cache']);
      const notModified = await request(fixture.http).get(path).set('Authorization', alice).set('If-None-Match', answer.headers.etag!).expect(304);
      expect(notModified.headers['cache-control']).toBe('private, no-cache');
    }
    expect((await request(fixture.http).get('/public.html').expect(200)).headers['cache-control']).toBe('public, max-age=31536000');
    expect((await request(fixture.http).get('/open-site/').expect(200)).headers['cache-control']).toBe('public, max-age=31536000');
  });

  it('makes a configured Cache-Control private and asked again before each use, unless it says private or no-store itself', () => {
    expect(privateCacheControl('public, max-age=31536000')).toBe('private, no-cache');
    expect(privateCacheControl('max-age=600, PUBLIC, immutable')).toBe('private, no-cache');
    expect(privateCacheControl('no-cache')).toBe('private, no-cache');
    expect(privateCacheControl('private, max-age=60')).toBe('private, max-age=60');
    expect(privateCacheControl('no-store')).toBe('no-store');
  });

  it('describes in its OpenAPI document the credentials, the 401 and the 403 the data API answers (it said nothing of them)', async () => {
    const document = (await request(fixture.http).get('/api/v1/openapi.json').set('Authorization', basic('bob', 'bob-pw')).expect(200)).body;
    expect(await new Validator().validate(document)).toEqual({ valid: true });
    expect(document.components.securitySchemes).toEqual({ basicAuth: { type: 'http', scheme: 'basic', description: 'Realm Staff "only".' } });
    for (const [path, method] of [['/api/v1/data/items', 'get'], ['/api/v1/data/items', 'post'], ['/api/v1/data/items/{id}', 'put'], ['/api/v1/data/items/{id}/history', 'get']]) {
      const operation = document.paths[path!][method!];
      expect([path, method, operation.security, Object.keys(operation.responses)]).toEqual([path, method, [{ basicAuth: [] }], expect.arrayContaining(['401', '403'])]);
      expect(operation.responses['403'].description).toMatch(/^FORBIDDEN: the identity holds none of the roles editor\./);
    }
    // What the server answers is what the document says.
    expect((await request(fixture.http).get('/api/v1/data/items')).status).toBe(401);
    expect((await request(fixture.http).get('/api/v1/data/items').set('Authorization', basic('dave', 'dave-pw'))).status).toBe(403);
  });

  it('applies a dataset route rule to the whole data API of that dataset', async () => {
    await request(fixture.http).get('/api/v1/data/items/a').set('Authorization', basic('dave', 'dave-pw')).expect(403);
    await request(fixture.http).post('/api/v1/data/items').set('Authorization', basic('dave', 'dave-pw')).send({ id: 'z' }).expect(403);
    await request(fixture.http).get('/api/v1/data/items/a').set('Authorization', basic('bob', 'bob-pw')).expect(200);
    await request(fixture.http).post('/api/v1/data/items').set('Authorization', basic('bob', 'bob-pw')).send({ id: 'c' }).expect(201);
    // Browsers send cached basic credentials on their own: a page of another site still cannot write with them.
    const crossSite = await request(fixture.http).post('/api/v1/data/items').set('Authorization', basic('bob', 'bob-pw')).set('Origin', 'https://evil.example').set('Content-Type', 'text/plain').send('{"id": "evil"}').expect(403);
    expect(crossSite.body.error.code).toBe('CROSS_SITE_WRITE');
    await request(fixture.http).post('/api/v1/data/items').set('Authorization', basic('bob', 'bob-pw')).set('Sec-Fetch-Site', 'cross-site').send({ id: 'evil2' }).expect(403);
    await request(fixture.http).delete('/api/v1/data/items/c').set('Authorization', basic('bob', 'bob-pw')).expect(204);
  });

  it('applies it to GraphQL for that dataset', async () => {
    const query = { query: '{ items }' };
    // dave may read no dataset GraphQL serves here: it is refused as the data API refuses him.
    const refused = await request(fixture.http).post('/graphql').set('Authorization', basic('dave', 'dave-pw')).send(query).expect(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const mutation = { query: 'mutation { createItems(item: {id: "g"}) }' };
    expect((await request(fixture.http).post('/graphql').set('Authorization', basic('dave', 'dave-pw')).send(mutation).expect(403)).body.error.code).toBe('FORBIDDEN');
    const allowed = await request(fixture.http).post('/graphql').set('Authorization', basic('bob', 'bob-pw')).send(query).expect(200);
    expect(allowed.body.data.items).toEqual([{ id: 'a' }, { id: 'b' }]);
  });
});

describe('one request pipeline', () => {
  it('resolves each request once, whatever answers it: a static GET, an authenticated data read, a write, introspection', async () => {
    const resolve = jest.spyOn(RequestResolver.prototype, 'resolve');
    try {
      await request(fixture.http).get('/open-site/').expect(200);
      expect(resolve).toHaveBeenCalledTimes(1);
      await request(fixture.http).get('/api/v1/data/items').set('Authorization', basic('alice', 'alice-pw')).expect(200);
      expect(resolve).toHaveBeenCalledTimes(2);
      await request(fixture.http).post('/api/v1/data/items').set('Authorization', basic('alice', 'alice-pw')).send({ id: 'once' }).expect(201);
      expect(resolve).toHaveBeenCalledTimes(3);
      await request(fixture.http).get('/introspect/status').set('Authorization', basic('alice', 'alice-pw')).expect(200);
      expect(resolve).toHaveBeenCalledTimes(4);
    } finally {
      resolve.mockRestore();
    }
  });
});

describe('a password file that changes', () => {
  it('is read again: a new password works and the old one stops working', async () => {
    const old = basic('bob', 'bob-pw');
    await request(fixture.http).get('/').set('Authorization', old).expect(200);
    writeFileSync(passwdFile, users().replace(/^bob:.*$/m, htpasswd('-m', 'bob', 'bob-new-pw')));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await request(fixture.http).get('/').set('Authorization', basic('bob', 'bob-new-pw')).expect(200);
    await request(fixture.http).get('/').set('Authorization', old).expect(401);
  });
});

describe('a password file inside the package', () => {
  it('is used when deploy.json names none', async () => {
    const packaged = demoPackage({
      'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, passwdFile: 'auth/htpasswd' } } }),
      'auth/htpasswd': htpasswd('-B', '-C', '4', 'zoe', 'zoe-pw') + '\n',
    });
    const own = await startReactor(new MemoryOpener().add('p', packaged), [{ source: 'p' }]);
    try {
      const challenge = await request(own.http).get('/').expect(401);
      expect(challenge.headers['www-authenticate']).toBe('Basic realm="demo-site"');
      await request(own.http).get('/').set('Authorization', basic('zoe', 'zoe-pw')).expect(200);
      await request(own.http).get('/').set('Authorization', basic('zoe', 'other')).expect(401);
    } finally {
      await own.stop();
    }
  });

  it('leaves a package with basic auth and no password file unmounted, never open', async () => {
    const packaged = demoPackage({ 'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true } } }) });
    await expect(startReactor(new MemoryOpener().add('p', packaged), [{ source: 'p' }])).rejects.toThrow(/no password file/);
  });
});

describe('mounts and folders under the reactor\'s own prefixes (/auth, /package, /introspect)', () => {
  it('are the mount\'s paths like any other: its own identities, its route rules; an open one stays open', async () => {
    const guarded = (name: string, user: string, rule: object) =>
      demoPackage({
        'metadata.json': JSON.stringify({ ...VALID_METADATA, name }),
        'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, passwdFile: 'auth/htpasswd' } } }),
        'auth/htpasswd': htpasswd('-B', '-C', '4', user, `${user}-pw`) + '\n',
        'content/admin/panel.html': '<p>panel</p>',
        'content/introspect/page.html': '<p>page</p>',
        'routes.json': JSON.stringify({ routes: [{ path: '/admin/panel.html', resource: 'content/admin/panel.html', accessControl: rule }] }),
      });
    const opener = new MemoryOpener()
      .add('secret', guarded('secret', 'alice', { roles: ['admin'] }))
      .add('other', guarded('other', 'bob', {}))
      .add('open', demoPackage({ 'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'open-site' }), 'content/css/site.css': 'p {}' }));
    const own = await startReactor(opener, [
      { source: 'secret', prefix: '/auth' },
      { source: 'other', prefix: '/' },
      { source: 'open', prefix: '/package' },
    ]);
    try {
      for (const path of ['/auth/index.html', '/auth/api/v1/data/items']) await request(own.http).get(path).set('Authorization', basic('bob', 'bob-pw')).expect(401);
      await request(own.http).put('/auth/planted.html').set('Authorization', basic('bob', 'bob-pw')).send('x').expect(401);
      await request(own.http).get('/auth/index.html').set('Authorization', basic('alice', 'alice-pw')).expect(200);
      expect((await request(own.http).get('/auth/admin/panel.html').set('Authorization', basic('alice', 'alice-pw')).expect(403)).body.error.code).toBe('FORBIDDEN');
      // The root mount's own folder named like an endpoint: its identities only.
      await request(own.http).get('/introspect/page.html').set('Authorization', basic('alice', 'alice-pw')).expect(401);
      await request(own.http).get('/introspect/page.html').set('Authorization', basic('bob', 'bob-pw')).expect(200);
      await request(own.http).get('/package/index.html').expect(200);
      // Two levels down is no package endpoint either: /package/<name>/<endpoint> names one of the four.
      expect((await request(own.http).get('/package/css/site.css').expect(200)).text).toBe('p {}');
      // The reactor's own endpoints there are still its own, behind every mount's identities.
      await request(own.http).get('/package/open-site/status').set('Authorization', basic('alice', 'alice-pw')).expect(200);
      await request(own.http).get('/introspect/status').expect(401);
      await request(own.http).get('/introspect/status').set('Authorization', basic('bob', 'bob-pw')).expect(200);
    } finally {
      await own.stop();
    }
  });
});

describe('several routes to one dataset', () => {
  it('keep the rule of its /api/v1/data/<id> route: a laxer route to the same dataset, before or after it, opens neither the data API, GraphQL nor itself', async () => {
    const items = (routes: object[]) =>
      demoPackage({
        'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, passwdFile: 'auth/htpasswd' } } }),
        'auth/htpasswd': htpasswd('-B', '-C', '4', 'alice', 'alice-pw') + '\n' + htpasswd('-B', '-C', '4', 'dave', 'dave-pw') + '\n',
        'data/items.json': JSON.stringify([{ id: 'a' }]),
        'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
        'routes.json': JSON.stringify({ routes }),
      });
    const canonical = { path: '/api/v1/data/items', dataset: 'items', accessControl: { roles: ['admin'] } };
    const lax = { path: '/api/v1/data/public-items', dataset: 'items', accessControl: { authenticationRequired: false } };
    const alias = { path: '/items', dataset: 'items' };
    // Outside the data API's paths, a laxer route to the dataset served its data to anyone.
    const laxAlias = { path: '/open-items', dataset: 'items', accessControl: { authenticationRequired: false } };
    for (const routes of [[canonical, lax, alias, laxAlias], [laxAlias, lax, alias, canonical]]) {
      const own = await startReactor(new MemoryOpener().add('items', items(routes)), [{ source: 'items' }], { deploy: deployFile });
      try {
        for (const path of ['/api/v1/data/items', '/api/v1/data/items/a', '/items', '/open-items']) {
          await request(own.http).get(path).expect(401);
          await request(own.http).get(path).set('Authorization', basic('dave', 'dave-pw')).expect(403);
          await request(own.http).get(path).set('Authorization', basic('alice', 'alice-pw')).expect(200);
        }
        const refused = await request(own.http).post('/graphql').set('Authorization', basic('dave', 'dave-pw')).send({ query: '{ items }' }).expect(403);
        expect(refused.body.error.code).toBe('FORBIDDEN');
      } finally {
        await own.stop();
      }
    }
  });
});
