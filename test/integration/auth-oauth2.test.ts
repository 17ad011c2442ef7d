import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { NodeAuthCrypto } from '../../src/adapters/crypto/node-auth-crypto.js';
import { FetchOAuth2Provider } from '../../src/adapters/oauth2/fetch-oauth2-provider.js';
import { Sessions } from '../../src/application/auth/sessions.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { MemorySessionRevocations } from '../fakes/memory-session-revocations.js';
import { setCookies, signInAt, startBrokenEndpoint, startLoginAt, startProvider } from '../support/oauth2-provider.js';
import { startReactor } from '../support/reactor-fixture.js';
import { swap } from '../support/production-container.js';
import { PORT } from '../../src/composition/service-ids.js';
import type { ReactorSettings } from '../../src/application/ports/reactor-host.js';

const BASE = 'http://reactor.test';
const SECRET = 'deploy-session-secret-0123456789';
const CLIENT_SECRET = 'client-secret-never-shown';

const directory = mkdtempSync(join(tmpdir(), 'auth-oauth2-'));
let provider: Awaited<ReturnType<typeof startProvider>>;
let broken: Awaited<ReturnType<typeof startBrokenEndpoint>>;
let fixture: Awaited<ReturnType<typeof startReactor>>;

function sitePackage(oauth2: Record<string, unknown>) {
  return demoPackage({
    'authentication.json': JSON.stringify({ authentication: { oauth2: { enabled: true, provider: 'mock', clientId: 'reactor-client', scopes: ['openid', 'email'], ...oauth2 } } }),
    'content/admin.html': '<p>admin</p>',
    'data/items.json': JSON.stringify([{ id: 'a' }]),
    'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
    'routes.json': JSON.stringify({
      routes: [
        { path: '/', resource: 'content/index.html' },
        { path: '/admin.html', resource: 'content/admin.html', accessControl: { roles: ['admin'] } },
        { path: '/api/v1/data/items', dataset: 'items' },
      ],
    }),
  });
}
const endpoints = (url: string) => ({ authorizationUrl: `${url}/authorize`, tokenUrl: `${url}/token`, userinfoUrl: `${url}/userinfo` });

function writeDeploy(name: string, deploy: Record<string, unknown>): string {
  const file = join(directory, name);
  writeFileSync(file, JSON.stringify(deploy));
  return file;
}

let deploys = 0;

/** A reactor of its own over the site package, with this deploy.json and these settings, for the length of `use`. */
async function withReactor(deploy: Record<string, unknown>, settings: Partial<ReactorSettings>, use: (http: Awaited<ReturnType<typeof startReactor>>['http']) => Promise<void>): Promise<void> {
  const own = await startReactor(new MemoryOpener().add('site', sitePackage(endpoints(provider.url))), [{ source: 'site' }], { deploy: writeDeploy(`deploy-own-${++deploys}.json`, deploy), workdir: directory, ...settings });
  try {
    await use(own.http);
  } finally {
    await own.stop();
  }
}

async function startLogin(http = fixture.http, returnTo = '/admin.html') {
  return startLoginAt(http, returnTo);
}

async function signIn(http = fixture.http): Promise<string> {
  return signInAt(http);
}

beforeAll(async () => {
  provider = await startProvider();
  broken = await startBrokenEndpoint();
  const deploy = writeDeploy('deploy.json', { baseUrl: BASE, authentication: { oauth2: { clientSecret: CLIENT_SECRET }, sessionSecret: SECRET, roles: { 'jo@example.org': ['admin'] } } });
  const opener = new MemoryOpener().add('site', sitePackage(endpoints(provider.url)));
  fixture = await startReactor(opener, [{ source: 'site' }], { deploy, workdir: directory }, swap(PORT.OAuth2Provider, new FetchOAuth2Provider(500)));
});
afterAll(async () => {
  await fixture.stop();
  await provider.stop();
  await broken.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('the login', () => {
  it('redirects to the provider with code flow, client, redirect URI, scope, signed state and a PKCE S256 challenge', async () => {
    const login = await request(fixture.http).get('/auth/login').expect(302);
    const url = new URL(login.headers.location!);
    expect(`${url.origin}${url.pathname}`).toBe(`${provider.url}/authorize`);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('client_id')).toBe('reactor-client');
    expect(url.searchParams.get('redirect_uri')).toBe(`${BASE}/auth/callback`);
    expect(url.searchParams.get('scope')).toBe('openid email');
    expect(url.searchParams.get('state')).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.has('client_secret')).toBe(false);
    const state = setCookies(login).get('pkg_oauth_state')!;
    expect(state.attributes).toBe('Max-Age=600; Path=/; HttpOnly; SameSite=Lax');
  });

  it('answers HEAD as GET where a GET changes nothing (the login), and 405 with the right Allow where it would (callback, logout)', async () => {
    const head = await request(fixture.http).head('/auth/login').expect(302);
    expect(new URL(head.headers.location!).searchParams.get('redirect_uri')).toBe(`${BASE}/auth/callback`);
    expect(setCookies(head).has('pkg_oauth_state')).toBe(true);
    expect((await request(fixture.http).post('/auth/login').expect(405)).headers.allow).toBe('GET, HEAD');
    // A HEAD must not spend the login's one-time code, nor end a session.
    const session = await signIn();
    const { callback, stateCookie } = await startLogin();
    const refused = await request(fixture.http).head(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(405);
    expect(refused.headers.allow).toBe('GET');
    expect(refused.headers['set-cookie']).toBeUndefined();
    await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(302);
    expect((await request(fixture.http).head('/auth/logout').set('Cookie', `pkg_session=${session}`).expect(405)).headers.allow).toBe('GET, POST');
    await request(fixture.http).get('/admin.html').set('Cookie', `pkg_session=${session}`).expect((answer) => expect(answer.status).not.toBe(401));
    // A HEAD of a protected page has the headers its GET has: the sign-in page's, for a browser.
    const page = await request(fixture.http).head('/admin.html').set('Accept', 'text/html').expect(401);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('sends a browser on a protected page to the login with a 401 page that links there', async () => {
    const page = await request(fixture.http).get('/admin.html').set('Accept', 'text/html').expect(401);
    expect(page.text).toContain('url=/auth/login?returnTo=%2Fadmin.html');
    const api = await request(fixture.http).get('/api/v1/data/items').expect(401);
    expect(api.body.error.code).toBe('UNAUTHENTICATED');
    // RFC 9110 requires a challenge of every 401: the login and the cookie it sets, never Basic (a browser would ask for a password).
    expect(api.headers['www-authenticate']).toBe('Cookie realm="demo-site", form-action="/auth/login", cookie-name=pkg_session');
    expect(page.headers['www-authenticate']).toBe(api.headers['www-authenticate']);
  });

  it('challenges at a mount of its own with its login, its path percent-encoded, and with Basic too where basic auth is on as well', async () => {
    const both = demoPackage({
      'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, passwdFile: 'auth/htpasswd', realm: 'Staff "only"' }, oauth2: { enabled: true, provider: 'mock', clientId: 'reactor-client', ...endpoints(provider.url) } } }),
      'auth/htpasswd': 'zoe:{SHA}x\n',
    });
    const opener = new MemoryOpener().add('site', sitePackage(endpoints(provider.url))).add('both', both);
    const own = await startReactor(opener, [{ prefix: '/café/', source: 'site' }, { prefix: '/both/', source: 'both' }], { deploy: writeDeploy('deploy-challenges.json', { baseUrl: BASE, authentication: { sessionSecret: SECRET } }), workdir: join(directory, 'challenges') });
    try {
      expect((await request(own.http).get('/caf%C3%A9/api/v1/data/items').expect(401)).headers['www-authenticate']).toBe('Cookie realm="demo-site", form-action="/caf%C3%A9/auth/login", cookie-name=pkg_session');
      // Each challenge on a line of its own: browsers read one per line, and would miss a Basic one after another.
      const mixed = await request(own.http).get('/both/').expect(401);
      const lines = (mixed as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders.filter((_value, index, raw) => index % 2 === 1 && raw[index - 1]!.toLowerCase() === 'www-authenticate');
      expect(lines).toEqual(['Basic realm="Staff \\"only\\""', 'Cookie realm="demo-site", form-action="/both/auth/login", cookie-name=pkg_session']);
    } finally {
      await own.stop();
    }
  });

  it('exchanges the code with the PKCE verifier, sets a signed pkg_session cookie and returns to the page', async () => {
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo-subject', email: 'jo@example.org', email_verified: true }));
    const { callback, stateCookie } = await startLogin();
    const done = await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(302);
    expect(done.headers.location).toBe('/admin.html');
    const cookies = setCookies(done);
    expect(cookies.get('pkg_session')!.attributes).toBe('Max-Age=28800; Path=/; HttpOnly; SameSite=Lax');
    expect(cookies.get('pkg_oauth_state')!.attributes).toContain('Max-Age=0');
    const session = cookies.get('pkg_session')!.value;
    // deploy.json gives jo@example.org the admin role.
    expect((await request(fixture.http).get('/admin.html').set('Cookie', `pkg_session=${session}`).expect(200)).text).toBe('<p>admin</p>');
  });

  it('returns to a page whose name is not ASCII (returnTo decoded from the query), percent-encoded as a Location carries it', async () => {
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo-subject', email: 'jo@example.org', email_verified: true }));
    const { callback, stateCookie } = await startLogin(fixture.http, '/caf\u00e9/\u20ac.html');
    const done = await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(302);
    expect(done.headers.location).toBe('/caf%C3%A9/%E2%82%AC.html');
  });

  it('returns to the root of a mount whose path is not ASCII, percent-encoded, after a login without returnTo and a logout (they answered 500)', async () => {
    const own = await startReactor(new MemoryOpener().add('site', sitePackage(endpoints(provider.url))), [{ prefix: '/文档/', source: 'site' }], { deploy: writeDeploy('deploy-unicode-mount.json', { baseUrl: BASE, authentication: { sessionSecret: SECRET } }), workdir: join(directory, 'unicode-mount') });
    try {
      const root = '/%E6%96%87%E6%A1%A3/';
      const login = await request(own.http).get(`${root}auth/login`).expect(302);
      const back = new URL((await fetch(login.headers.location!, { redirect: 'manual' })).headers.get('location')!);
      const done = await request(own.http).get(`${back.pathname}${back.search}`).set('Cookie', `pkg_oauth_state=${setCookies(login).get('pkg_oauth_state')!.value}`).expect(302);
      expect(done.headers.location).toBe(root);
      const session = setCookies(done).get('pkg_session')!.value;
      expect((await request(own.http).get(`${root}auth/logout`).set('Cookie', `pkg_session=${session}`).expect(302)).headers.location).toBe(root);
    } finally {
      await own.stop();
    }
  });

  it('returns to a page whose query was sent unencoded after returnTo (a "?" inside a query is allowed)', async () => {
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo-subject', email: 'jo@example.org', email_verified: true }));
    const login = await request(fixture.http).get('/auth/login?returnTo=/admin.html?tab=keys').expect(302);
    const answer = await fetch(new URL(login.headers.location!), { redirect: 'manual' });
    const back = new URL(answer.headers.get('location')!);
    const done = await request(fixture.http).get(`${back.pathname}${back.search}`).set('Cookie', `pkg_oauth_state=${setCookies(login).get('pkg_oauth_state')!.value}`).expect(302);
    expect(done.headers.location).toBe('/admin.html?tab=keys');
  });

  it('returns to the mount from a page whose address is too long to travel in the state cookie a browser keeps (4 KB)', async () => {
    const login = await request(fixture.http).get(`/auth/login?returnTo=${encodeURIComponent(`/admin.html?q=${'x'.repeat(3000)}`)}`).expect(302);
    const header = (login.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith('pkg_oauth_state='))!;
    expect(header.length).toBeLessThan(4096);
    const { callback, stateCookie } = await startLogin(fixture.http, `/admin.html?q=${'x'.repeat(3000)}`);
    const done = await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(302);
    expect(done.headers.location).toBe('/');
  });

  it('honours a roles claim from userinfo, and refuses with 403 without the role', async () => {
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'claimed', roles: ['admin'] }));
    const claimed = await signIn();
    await request(fixture.http).get('/admin.html').set('Cookie', `pkg_session=${claimed}`).expect(200);
    const plain = await signIn();
    await request(fixture.http).get('/').set('Cookie', `pkg_session=${plain}`).expect(200);
    expect((await request(fixture.http).get('/admin.html').set('Cookie', `pkg_session=${plain}`).expect(403)).body.error.code).toBe('FORBIDDEN');
  });

  it('refuses with 502 a login whose claimed roles would make a session cookie too large for a browser to keep', async () => {
    const roles = Array.from({ length: 150 }, (_, index) => `group-${index}-of-the-organisation`);
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'many-groups', roles }));
    const { callback, stateCookie } = await startLogin();
    const refused = await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(502);
    expect(refused.body.error.code).toBe('OAUTH2_PROVIDER');
    expect(refused.body.error.message).toMatch(/150 roles.*deploy\.json "roles"/);
    expect(setCookies(refused).has('pkg_session')).toBe(false);
  });

  it('gives the roles of an email only when the provider says it is verified', async () => {
    for (const verified of [false, 'false', undefined]) {
      provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'mallory', email: 'jo@example.org', ...(verified === undefined ? {} : { email_verified: verified }) }));
      const session = await signIn();
      expect((await request(fixture.http).get('/admin.html').set('Cookie', `pkg_session=${session}`).expect(403)).body.error.message).toMatch(/^mallory lacks/);
    }
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo-subject', email: 'jo@example.org', email_verified: 'true' }));
    await request(fixture.http).get('/admin.html').set('Cookie', `pkg_session=${await signIn()}`).expect(200);
  });

  it('ends the session a new login replaces, so the logout that follows leaves none of this browser\'s alive', async () => {
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo-subject', email: 'jo@example.org', email_verified: true }));
    const first = await signIn();
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo-subject', email: 'jo@example.org', email_verified: true }));
    const { callback, stateCookie } = await startLogin();
    const again = await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}; pkg_session=${first}`).expect(302);
    const second = setCookies(again).get('pkg_session')!.value;
    expect(second).not.toContain(first);
    await request(fixture.http).get('/admin.html').set('Cookie', `pkg_session=${second}`).expect(200);
    await request(fixture.http).get('/admin.html').set('Cookie', `pkg_session=${first}`).expect(401);
  });

  it('logs out: the session cookie is cleared', async () => {
    const out = await request(fixture.http).get('/auth/logout').expect(302);
    expect(out.headers.location).toBe('/');
    expect(setCookies(out).get('pkg_session')).toEqual({ value: '', attributes: 'Max-Age=0; Path=/; HttpOnly; SameSite=Lax' });
  });

  it('keeps the session of a browser that another site navigates to the logout (a top-level GET carries the SameSite=Lax cookie)', async () => {
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo-subject', email: 'jo@example.org', email_verified: true }));
    const session = `pkg_session=${await signIn()}`;
    const refused = await request(fixture.http).get('/auth/logout').set('Cookie', session).set('Sec-Fetch-Site', 'cross-site').expect(403);
    expect(refused.body.error.code).toBe('CROSS_SITE_WRITE');
    expect(setCookies(refused).get('pkg_session')).toBeUndefined();
    await request(fixture.http).get('/admin.html').set('Cookie', session).expect(200);
    // A link on the site's own pages, or typed into the address bar, logs out.
    for (const site of ['same-origin', 'none']) await request(fixture.http).get('/auth/logout').set('Cookie', session).set('Sec-Fetch-Site', site).expect(302);
    await request(fixture.http).get('/admin.html').set('Cookie', session).expect(401);
  });

  it('a logout the workdir cannot keep is 503 OVERLAY and leaves the session valid, so the logout tried again ends it', async () => {
    const workdir = join(directory, 'unkept');
    await withReactor({ baseUrl: BASE, authentication: { sessionSecret: SECRET, roles: { 'jo@example.org': ['admin'] } } }, { workdir }, async (http) => {
      provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo-subject', email: 'jo@example.org', email_verified: true }));
      const session = `pkg_session=${await signInAt(http)}`;
      // A folder holding a file where the list goes (the sign-in's used state wrote it): no write can replace it.
      rmSync(join(workdir, 'revoked-sessions.json'));
      mkdirSync(join(workdir, 'revoked-sessions.json/in-the-way'), { recursive: true });
      const refused = await request(http).post('/auth/logout').set('Cookie', session).set('Origin', BASE).expect(503);
      expect(refused.body.error.code).toBe('OVERLAY');
      // Ended in memory alone, it would be valid again after a restart, and the next logout would say it ended without writing it.
      await request(http).get('/admin.html').set('Cookie', session).expect(200);
      rmSync(join(workdir, 'revoked-sessions.json'), { recursive: true });
      await request(http).post('/auth/logout').set('Cookie', session).set('Origin', BASE).expect(204);
      await request(http).get('/admin.html').set('Cookie', session).expect(401);
    });
  });

  it('logs out for good: the same cookie, replayed, is refused, also by the next reactor on the workdir', async () => {
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { sub: 'jo-subject', email: 'jo@example.org', email_verified: true }));
    const session = `pkg_session=${await signIn()}`;
    const other = `pkg_session=${await signIn()}`;
    await request(fixture.http).get('/admin.html').set('Cookie', session).expect(200);
    await request(fixture.http).post('/auth/logout').set('Cookie', session).set('Origin', BASE).expect(204);
    await request(fixture.http).get('/admin.html').set('Cookie', session).expect(401);
    await request(fixture.http).get('/').set('Cookie', other).expect(200);
    expect(statSync(join(directory, 'revoked-sessions.json')).mode & 0o777).toBe(0o600);
    const deploy = writeDeploy('deploy-restart.json', { baseUrl: BASE, authentication: { sessionSecret: SECRET, roles: { 'jo@example.org': ['admin'] } } });
    const restarted = await startReactor(new MemoryOpener().add('site', sitePackage(endpoints(provider.url))), [{ source: 'site' }], { deploy, workdir: directory });
    try {
      await request(restarted.http).get('/admin.html').set('Cookie', session).expect(401);
      await request(restarted.http).get('/').set('Cookie', other).expect(200);
    } finally {
      await restarted.stop();
    }
  });

  it.each([
    ['the root mount\'s callback is the other\'s login, the root loaded last', { redirectPath: '/other/auth/login' }, true, /the login of .*other-site.* at \/other\/ and the callback of .*site.* at \/;/],
    ['the root mount\'s callback is the other\'s login, the root loaded first', { redirectPath: '/other/auth/login' }, false, /the callback of .*site.* at \/ and the login of .*other-site.* at \/other\/;/],
    ['both callbacks meet', { redirectPath: '/other/auth/callback' }, true, /both \/other\/auth\/callback: the callback of .* at \/other\/ and the callback of .* at \//],
  ])('refuses at start two OAuth2 mounts whose sign-in paths meet (%s), naming both', async (_case, root, rootLast, message) => {
    const opener = new MemoryOpener()
      .add('site', sitePackage({ ...endpoints(provider.url), ...root }))
      .add('other', { ...sitePackage(endpoints(provider.url)), 'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'other-site' }) });
    const mounts = [{ prefix: '/other/', source: 'other' }, { prefix: '/', source: 'site' }];
    const starting = startReactor(opener, rootLast ? mounts : mounts.reverse(), { deploy: writeDeploy('deploy-meeting.json', { authentication: { sessionSecret: SECRET } }), workdir: join(directory, 'meeting') });
    await expect(starting).rejects.toMatchObject({ name: 'MountConflictError', message: expect.stringMatching(message) });
  });

  it('a session is accepted only by the mount and provider that issued it', async () => {
    const deploy = writeDeploy('deploy-two-mounts.json', { baseUrl: BASE, authentication: { sessionSecret: SECRET } });
    const opener = new MemoryOpener()
      .add('site', sitePackage(endpoints(provider.url)))
      .add('other', { ...sitePackage({ ...endpoints(provider.url), clientId: 'other-client' }), 'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'other-site' }) })
      .add('plain', demoPackage({ 'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'plain' }) }));
    // A mount at /auth/ lies over the root mount's /auth/login, /auth/callback and /auth/logout: the sign-in keeps them.
    const two = await startReactor(opener, [{ source: 'site' }, { prefix: '/other/', source: 'other' }, { prefix: '/auth/', source: 'plain' }], { deploy, workdir: join(directory, 'two') });
    try {
      await request(two.http).get('/auth/index.html').expect(200);
      const root = await signIn(two.http);
      await request(two.http).get('/').set('Cookie', `pkg_session=${root}`).expect(200);
      await request(two.http).get('/other/').set('Cookie', `pkg_session=${root}`).expect(401);
      await request(two.http).get('/other/api/v1/data/items').set('Cookie', `pkg_session=${root}`).expect(401);
      // The reactor's own endpoints for that package take its mount's sessions only.
      await request(two.http).post('/package/other-site/save').set('Cookie', `pkg_session=${root}`).set('Origin', BASE).expect(401);
      // Signed in to both, one cookie holds both sessions; signing out of one keeps the other.
      const signInTo = async (prefix: string, session: string) => {
        const login = await request(two.http).get(`${prefix}auth/login`).expect(302);
        const state = setCookies(login).get('pkg_oauth_state')!.value;
        const back = new URL((await fetch(login.headers.location!, { redirect: 'manual' })).headers.get('location')!);
        const done = await request(two.http).get(`${back.pathname}${back.search}`).set('Cookie', `pkg_oauth_state=${state}; pkg_session=${session}`).expect(302);
        return setCookies(done).get('pkg_session')!.value;
      };
      const both = await signInTo('/other/', root);
      for (const path of ['/', '/other/']) await request(two.http).get(path).set('Cookie', `pkg_session=${both}`).expect(200);
      const out = await request(two.http).post('/other/auth/logout').set('Cookie', `pkg_session=${both}`).set('Origin', BASE).expect(204);
      const left = setCookies(out).get('pkg_session')!.value;
      await request(two.http).get('/').set('Cookie', `pkg_session=${left}`).expect(200);
      await request(two.http).get('/other/').set('Cookie', `pkg_session=${left}`).expect(401);
      // The whole cookie, replayed: the other mount's session is revoked, the root's lives on.
      await request(two.http).get('/other/').set('Cookie', `pkg_session=${both}`).expect(401);
      await request(two.http).get('/').set('Cookie', `pkg_session=${both}`).expect(200);
    } finally {
      await two.stop();
    }
  });
});

describe('a callback that is not what this reactor started', () => {
  it('answers 401 to a replayed state, with the challenge to sign in again', async () => {
    const { callback, stateCookie } = await startLogin();
    await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(302);
    const replayed = await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(401);
    expect(replayed.body.error.code).toBe('OAUTH2_STATE');
    expect(replayed.headers['www-authenticate']).toBe('Cookie realm="demo-site", form-action="/auth/login", cookie-name=pkg_session');
  });

  it('leaves the state cookie to its own login when another login\'s callback, or a stranger\'s, fails (tabs signing in at once)', async () => {
    const earlier = await startLogin();
    // A second tab starts a login: its state cookie replaces the first's in the browser.
    const later = await startLogin();
    const stale = await request(fixture.http).get(earlier.callback).set('Cookie', `pkg_oauth_state=${later.stateCookie}`).expect(401);
    expect(setCookies(stale).has('pkg_oauth_state')).toBe(false);
    const forged = await request(fixture.http).get('/auth/callback?error=access_denied&state=x.y').set('Cookie', `pkg_oauth_state=${later.stateCookie}`).expect(401);
    expect(setCookies(forged).has('pkg_oauth_state')).toBe(false);
    const done = await request(fixture.http).get(later.callback).set('Cookie', `pkg_oauth_state=${later.stateCookie}`).expect(302);
    expect(setCookies(done).get('pkg_oauth_state')!.attributes).toContain('Max-Age=0');
    // Its own login's failure ends the cookie, as its success does.
    const refused = await startLogin();
    const own = new URL(refused.callback, BASE).searchParams.get('state')!;
    const failed = await request(fixture.http).get(`/auth/callback?error=access_denied&state=${own}`).set('Cookie', `pkg_oauth_state=${refused.stateCookie}`).expect(502);
    expect(setCookies(failed).get('pkg_oauth_state')!.attributes).toContain('Max-Age=0');
  });

  it('answers 401 to a tampered state, a foreign one, and one without its cookie', async () => {
    const first = await startLogin();
    const second = await startLogin();
    const tampered = first.callback.replace(/state=([\w-])/, (_m, c: string) => `state=${c === 'A' ? 'B' : 'A'}`);
    await request(fixture.http).get(tampered).set('Cookie', `pkg_oauth_state=${first.stateCookie}`).expect(401);
    await request(fixture.http).get(second.callback).set('Cookie', `pkg_oauth_state=${first.stateCookie}`).expect(401);
    await request(fixture.http).get(first.callback).expect(401);
    await request(fixture.http).get(first.callback).set('Cookie', `pkg_oauth_state=${first.stateCookie.slice(0, -3)}`).expect(401);
    await request(fixture.http).get('/auth/callback?code=abc').set('Cookie', `pkg_oauth_state=${first.stateCookie}`).expect(401);
  });

  it('answers 400 to a callback that carries code or state twice, whichever copy is the login\'s own', async () => {
    for (const added of ['&code=forged', '&state=forged']) {
      const { callback, stateCookie } = await startLogin();
      for (const query of [`${callback}${added}`, callback.replace('?', `?${added.slice(1)}&`)]) {
        const response = await request(fixture.http).get(query).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(400);
        expect(response.body.error.code).toBe('OAUTH2_CALLBACK');
        expect(setCookies(response).get('pkg_session')).toBeUndefined();
      }
    }
  });

  it('answers 400 to a callback without a code', async () => {
    const { callback, stateCookie } = await startLogin();
    const state = new URLSearchParams(callback.split('?')[1]).get('state')!;
    const response = await request(fixture.http).get(`/auth/callback?state=${state}`).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(400);
    expect(response.body.error.code).toBe('OAUTH2_CALLBACK');
  });

  it('answers 502 when the provider reports an error', async () => {
    const { callback, stateCookie } = await startLogin();
    const state = new URLSearchParams(callback.split('?')[1]).get('state')!;
    const response = await request(fixture.http).get(`/auth/callback?state=${state}&error=access_denied`).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(502);
    expect(response.body.error.code).toBe('OAUTH2_PROVIDER');
  });
});

describe('a provider that fails during the exchange', () => {
  it('answers 502 when the token endpoint refuses, without leaking the client secret', async () => {
    provider.server.service.once('beforeResponse', (token: { body: unknown; statusCode: number }) => {
      token.statusCode = 500;
      token.body = { error: 'server_error', client_secret: CLIENT_SECRET };
    });
    const { callback, stateCookie } = await startLogin();
    const response = await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(502);
    expect(response.body.error.code).toBe('OAUTH2_PROVIDER');
    expect(response.text).not.toContain(CLIENT_SECRET);
    expect(setCookies(response).get('pkg_session')).toBeUndefined();
  });

  it('answers 502 when userinfo names no email and no subject', async () => {
    provider.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = { name: 'Nobody' }));
    const { callback, stateCookie } = await startLogin();
    const response = await request(fixture.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(502);
    expect(response.body.error.message).toMatch(/email or a subject/);
  });

  it.each(['error', 'html', 'hang'] as const)('answers 502 when the token endpoint answers %s (bounded in time)', async (mode) => {
    broken.mode.value = mode;
    const deploy = writeDeploy(`deploy-${mode}.json`, { baseUrl: BASE, authentication: { sessionSecret: SECRET } });
    const opener = new MemoryOpener().add('site', sitePackage({ ...endpoints(provider.url), tokenUrl: `${broken.url}/token` }));
    const own = await startReactor(opener, [{ source: 'site' }], { deploy, workdir: directory }, swap(PORT.OAuth2Provider, new FetchOAuth2Provider(500)));
    try {
      const { callback, stateCookie } = await startLogin(own.http);
      const started = Date.now();
      const response = await request(own.http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(502);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(response.body.error.message).toMatch(mode === 'hang' ? /did not answer within 500 ms/ : mode === 'html' ? /other than a JSON object/ : /answered 500/);
    } finally {
      await own.stop();
    }
  });
});

describe('the session cookie', () => {
  const audience = () => JSON.stringify(['/', `${provider.url}/authorize`, 'reactor-client']);
  const sessions = (now: () => number, secret = SECRET) => new Sessions(secret, new NodeAuthCrypto(), {}, new MemorySessionRevocations(now), now);

  it('is refused when tampered, truncated, expired or signed with another secret', async () => {
    const good = await signIn();
    await request(fixture.http).get('/').set('Cookie', `pkg_session=${good}`).expect(200);
    const [payload, signature] = [good.slice(0, good.lastIndexOf('.')), good.slice(good.lastIndexOf('.') + 1)];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), r: ['admin'] })).toString('base64url');
    for (const bad of [`${forged}.${signature}`, good.slice(0, -4), payload, 'garbage', sessions(() => Date.now() - 9 * 3600 * 1000).issue({ name: 'jo', names: ['jo'], roles: [] }, audience())]) {
      await request(fixture.http).get('/').set('Cookie', `pkg_session=${bad}`).expect(401);
    }
    const other = sessions(Date.now, 'another-secret-0123456789abcdef').issue({ name: 'jo', names: ['jo'], roles: [] }, audience());
    await request(fixture.http).get('/').set('Cookie', `pkg_session=${other}`).expect(401);
    // A cookie this reactor signed for a live session passes: the check is the signature, not a server-side list.
    await request(fixture.http).get('/').set('Cookie', `pkg_session=${sessions(Date.now).issue({ name: 'jo', names: ['jo'], roles: [] }, audience())}`).expect(200);
    await request(fixture.http).get('/').set('Cookie', `pkg_session=${sessions(Date.now).issue({ name: 'jo', names: ['jo'], roles: [] }, JSON.stringify(['/', 'https://elsewhere/authorize', 'reactor-client']))}`).expect(401);
  });

  it('cannot write from another site: writes need Origin or Sec-Fetch-Site of this site', async () => {
    const session = `pkg_session=${await signIn()}`;
    const post = (id: string) => request(fixture.http).post('/api/v1/data/items').set('Cookie', session).send({ id });
    expect((await post('x1').expect(403)).body.error.code).toBe('CROSS_SITE_WRITE');
    await post('x2').set('Origin', 'https://evil.example').expect(403);
    await post('x3').set('Sec-Fetch-Site', 'cross-site').set('Origin', BASE).expect(403);
    await post('x4').set('Origin', BASE).expect(201);
    await post('x5').set('Sec-Fetch-Site', 'same-origin').expect(201);
    await request(fixture.http).put('/notes.txt').set('Cookie', session).set('Origin', 'https://evil.example').send('x').expect(403);
    await request(fixture.http).post('/package/demo-site/save').set('Cookie', session).set('Origin', 'https://evil.example').expect(403);
    await request(fixture.http).post('/graphql').set('Cookie', session).set('Origin', 'https://evil.example').send({ query: 'mutation { createItems(item: {id: "g"}) }' }).expect(403);
    const read = await request(fixture.http).get('/api/v1/data/items').set('Cookie', session).expect(200);
    expect(read.body.map((item: { id: string }) => item.id)).toEqual(['a', 'x4', 'x5']);
  });

  it('writes from a page of an allowed origin (--cors), and from its own name reached over https, as the guard lets them', async () => {
    await withReactor({ authentication: { sessionSecret: SECRET } }, { cors: ['https://app.example'] }, async (http) => {
      const session = `pkg_session=${await signInAt(http)}`;
      const post = (id: string) => request(http).post('/api/v1/data/items').set('Cookie', session).send({ id });
      // A sibling site's page (same-site to the browser, so the Lax cookie goes along), allowed with --cors.
      const allowed = await post('c1').set('Origin', 'https://app.example').set('Sec-Fetch-Site', 'same-site').expect(201);
      expect(allowed.headers['access-control-allow-credentials']).toBe('true');
      await post('c2').set('Origin', 'https://app.example').expect(201);
      // Behind a TLS proxy, the reactor's own page at an address it answers to.
      await post('c3').set('Host', 'localhost:8443').set('Origin', 'https://localhost:8443').expect(201);
      expect((await post('c4').set('Origin', 'https://evil.example').set('Sec-Fetch-Site', 'cross-site').expect(403)).body.error.code).toBe('CROSS_SITE_WRITE');
      expect((await post('c5').expect(403)).body.error.code).toBe('CROSS_SITE_WRITE');
    });
  });

  it.each(['https://reactor.example', 'HTTPS://reactor.example'])('is marked Secure when deploy.json baseUrl is https (%s: a scheme in capitals too)', async (baseUrl) => {
    await withReactor({ baseUrl, authentication: { sessionSecret: SECRET } }, {}, async (http) => {
      const login = await request(http).get('/auth/login').expect(302);
      expect(setCookies(login).get('pkg_oauth_state')!.attributes).toBe('Max-Age=600; Path=/; HttpOnly; Secure; SameSite=Lax');
      expect(new URL(login.headers.location!).searchParams.get('redirect_uri')).toBe(`${baseUrl}/auth/callback`);
      const { callback, stateCookie } = await startLoginAt(http);
      const done = await request(http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(302);
      expect(setCookies(done).get('pkg_session')!.attributes).toBe('Max-Age=28800; Path=/; HttpOnly; Secure; SameSite=Lax');
    });
  });
});

describe('the public address, without deploy.json baseUrl', () => {
  const redirectUri = (login: request.Response) => new URL(login.headers.location!).searchParams.get('redirect_uri');

  it('behind a TLS-terminating proxy (--trust-proxy) is https: the redirect URI and Secure cookies follow X-Forwarded-Proto', async () => {
    await withReactor({ authentication: { sessionSecret: SECRET } }, { trustProxy: true }, async (http) => {
      const login = await request(http).get('/auth/login').set('Host', 'localhost:8443').set('X-Forwarded-Proto', 'https').expect(302);
      expect(redirectUri(login)).toBe('https://localhost:8443/auth/callback');
      expect(setCookies(login).get('pkg_oauth_state')!.attributes).toBe('Max-Age=600; Path=/; HttpOnly; Secure; SameSite=Lax');
      // The value the proxy nearest the reactor added is the last: one before it is whatever the client sent.
      expect(redirectUri(await request(http).get('/auth/login').set('Host', 'localhost:8443').set('X-Forwarded-Proto', 'https, http').expect(302))).toBe('http://localhost:8443/auth/callback');
      const { callback, stateCookie } = await startLoginAt(http);
      const done = await request(http).get(callback).set('X-Forwarded-Proto', 'https').set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(302);
      expect(setCookies(done).get('pkg_session')!.attributes).toBe('Max-Age=28800; Path=/; HttpOnly; Secure; SameSite=Lax');
      const out = await request(http).post('/auth/logout').set('X-Forwarded-Proto', 'https').expect(204);
      expect(setCookies(out).get('pkg_session')!.attributes).toContain('Secure');
    });
  });

  it('behind a proxy that sends RFC 7239 Forwarded (--trust-proxy) is https by its last element\'s proto, unless X-Forwarded-* come too', async () => {
    await withReactor({ authentication: { sessionSecret: SECRET } }, { trustProxy: true }, async (http) => {
      const login = (forwarded: string) => request(http).get('/auth/login').set('Host', 'localhost:8443').set('Forwarded', forwarded).expect(302);
      const answer = await login('for="[2001:db8::1]:4711";proto=https;host=localhost:8443');
      expect(redirectUri(answer)).toBe('https://localhost:8443/auth/callback');
      expect(setCookies(answer).get('pkg_oauth_state')!.attributes).toContain('Secure');
      expect(redirectUri(await login('proto=https, for=203.0.113.7;proto=http'))).toBe('http://localhost:8443/auth/callback');
      expect(redirectUri(await login('proto=https, proto="https'))).toBe('http://localhost:8443/auth/callback');
      // A proxy that sets X-Forwarded-For passes the client's Forwarded on: that is not the proxy's word.
      expect(redirectUri(await login('proto=https').set('X-Forwarded-For', '203.0.113.7'))).toBe('http://localhost:8443/auth/callback');
    });
    await withReactor({ authentication: { sessionSecret: SECRET } }, {}, async (http) => {
      expect(redirectUri(await request(http).get('/auth/login').set('Forwarded', 'proto=https').expect(302))).toMatch(/^http:\/\//);
    });
  });

  it('never takes X-Forwarded-Proto from a client without --trust-proxy', async () => {
    await withReactor({ authentication: { sessionSecret: SECRET } }, {}, async (http) => {
      const login = await request(http).get('/auth/login').set('X-Forwarded-Proto', 'https').expect(302);
      expect(redirectUri(login)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/callback$/);
      expect(setCookies(login).get('pkg_oauth_state')!.attributes).not.toContain('Secure');
    });
  });

  it('is never a Host that is not one of the reactor\'s names: 421 MISDIRECTED_REQUEST, no redirect URI to it', async () => {
    await withReactor({ authentication: { sessionSecret: SECRET } }, { trustProxy: true }, async (http) => {
      const login = await request(http).get('/auth/login').set('Host', 'evil.example').expect(421);
      expect(login.body.error.code).toBe('MISDIRECTED_REQUEST');
      expect(login.body.error.message).toContain('baseUrl');
      expect(login.headers['set-cookie']).toBeUndefined();
      // Nor a Host that is no host name, though it ends like one of the reactor's names or begins with its address.
      for (const host of ['evil.example#.localhost', '[::1]@evil.example']) expect((await request(http).get('/auth/login').set('Host', host).expect(400)).headers.location).toBeUndefined();
    });
    // With baseUrl, the login names it whatever Host came.
    await withReactor({ baseUrl: 'https://reactor.example', authentication: { sessionSecret: SECRET } }, {}, async (http) => {
      expect(redirectUri(await request(http).get('/auth/login').set('Host', 'evil.example').expect(302))).toBe('https://reactor.example/auth/callback');
    });
  });
});

describe('the session secret', () => {
  it('is generated once into <workdir>/session-secret with mode 0600 and reused on restart', async () => {
    const workdir = mkdtempSync(join(tmpdir(), 'auth-secret-'));
    const opener = new MemoryOpener().add('site', sitePackage(endpoints(provider.url)));
    try {
      const first = await startReactor(opener, [{ source: 'site' }], { workdir });
      const session = await signIn(first.http);
      await first.stop();
      const file = join(workdir, 'session-secret');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const secret = readFileSync(file, 'utf8');
      expect(secret.length).toBeGreaterThanOrEqual(32);
      const second = await startReactor(opener, [{ source: 'site' }], { workdir });
      try {
        await request(second.http).get('/').set('Cookie', `pkg_session=${session}`).expect(200);
        expect(readFileSync(file, 'utf8')).toBe(secret);
        const config = await request(second.http).get('/introspect/config').set('Cookie', `pkg_session=${session}`).expect(200);
        expect(config.body.authEnabled).toBe(true);
        expect(JSON.stringify(config.body)).not.toContain(secret);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });
});
