import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { ROOT } from '../support/paths.js';
import request from 'supertest';
import { setCookies, startLoginAt, startProvider } from '../support/oauth2-provider.js';
import { failingServe, startServe, type ServeProcess } from '../support/serve-process.js';

const ARTIFACTS = join(ROOT, 'test-artifacts');
const directory = mkdtempSync(join(tmpdir(), 'e2e-auth-'));

function writePackage(name: string, authentication: unknown, extra: Record<string, string> = {}): string {
  const root = join(directory, name);
  const files: Record<string, string> = {
    'metadata.json': JSON.stringify({ name, version: '1.0.0', description: 'protected', guid: `pkg://example.org/${name}`, uuid: '123e4567-e89b-42d3-a456-426614174000' }),
    'authentication.json': JSON.stringify({ authentication }),
    'content/index.html': '<!doctype html><title>Home</title><p>home</p>',
    'content/secret.html': '<!doctype html><title>Secret</title><link rel="stylesheet" href="/style.css"><h1 id="secret">The secret page</h1>',
    'content/style.css': 'h1 { color: green; }',
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('basic authentication through the built reactor', () => {
  let reactor: ServeProcess;
  beforeAll(async () => {
    const site = writePackage('staff-site', { basicAuth: { enabled: true, realm: 'Staff' } });
    writeFileSync(join(directory, 'htpasswd'), execFileSync('htpasswd', ['-nbB', '-C', '4', 'ann', 'ann-pw'], { encoding: 'utf8' }));
    writeFileSync(join(directory, 'basic-deploy.json'), JSON.stringify({ authentication: { basicAuth: { passwdFile: 'htpasswd' } } }));
    reactor = await startServe([site], { env: { PKG_DEPLOY: join(directory, 'basic-deploy.json') } });
  }, 30_000);
  afterAll(() => reactor?.stop());

  it('challenges, then serves with the right password; the access log shows both', async () => {
    const refused = await fetch(`${reactor.url}/secret.html`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Basic realm="Staff"');
    const served = await fetch(`${reactor.url}/secret.html`, { headers: { Authorization: `Basic ${Buffer.from('ann:ann-pw').toString('base64')}` } });
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('The secret page');
    expect((await fetch(`${reactor.url}/introspect/status`)).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reactor.stdout()).toMatch(/GET \/secret\.html -> 401/);
    expect(reactor.stdout()).toMatch(/GET \/secret\.html -> 200/);
  });

  it('refuses to start when deploy.json is malformed, naming the file', async () => {
    writeFileSync(join(directory, 'bad-deploy.json'), '{"authentication": ');
    const { code, stderr } = await failingServe([writePackage('other-site', { basicAuth: { enabled: true } }), '--deploy', join(directory, 'bad-deploy.json')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error: ConfigParseError: .*bad-deploy\.json/m);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a flood of password guesses through the built reactor', () => {
  let reactor: ServeProcess;
  const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
  beforeAll(async () => {
    const open = writePackage('open-site', {});
    const staff = writePackage('guarded-site', { basicAuth: { enabled: true, realm: 'Staff' } });
    // Cost 11: some 170 ms a check in JavaScript, as a password file made for people might hold.
    writeFileSync(join(directory, 'costly-htpasswd'), execFileSync('htpasswd', ['-nbB', '-C', '11', 'ann', 'ann-pw'], { encoding: 'utf8' }));
    writeFileSync(join(directory, 'costly-deploy.json'), JSON.stringify({ authentication: { basicAuth: { passwdFile: 'costly-htpasswd' } } }));
    reactor = await startServe([open, '--mount', `/staff=${staff}`, '--deploy', join(directory, 'costly-deploy.json'), '--quiet']);
  }, 30_000);
  afterAll(() => reactor?.stop());

  it('keeps answering other requests at once, refuses the guesses beyond what it checks with 503 and Retry-After, and lets the right password in after', async () => {
    expect((await fetch(`${reactor.url}/staff/secret.html`, { headers: basic('ann', 'ann-pw') })).status).toBe(200);
    const guesses = Array.from({ length: 40 }, (_, i) =>
      fetch(`${reactor.url}/staff/secret.html`, { headers: basic('ann', `guess-${i}`) }).then(async (answer) => ({ status: answer.status, retryAfter: answer.headers.get('retry-after'), body: await answer.text() })),
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Checked on the event loop, forty bcrypt checks took turns with this request for seconds.
    const asked = Date.now();
    const page = await fetch(`${reactor.url}/index.html`);
    expect(page.status).toBe(200);
    expect(Date.now() - asked).toBeLessThan(750);
    const answers = await Promise.all(guesses);
    const busy = answers.filter((answer) => answer.status === 503);
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(40 - busy.length);
    expect(busy.length).toBeGreaterThanOrEqual(40 - 16);
    for (const answer of busy) {
      expect(answer.retryAfter).toBe('1');
      expect(JSON.parse(answer.body).error.code).toBe('PASSWORD_CHECKS_BUSY');
    }
    expect((await fetch(`${reactor.url}/staff/secret.html`, { headers: basic('ann', 'ann-pw') })).status).toBe(200);
    expect((await fetch(`${reactor.url}/staff/secret.html`, { headers: basic('ann', 'another-guess') })).status).toBe(401);
  }, 30_000);
});

describe('OAuth2 login in a real browser', () => {
  let provider: Awaited<ReturnType<typeof startProvider>>;
  let reactor: ServeProcess;
  let browser: Browser;
  const workdir = join(directory, 'workdir');

  beforeAll(async () => {
    provider = await startProvider();
    const site = writePackage('sso-site', {
      oauth2: { enabled: true, provider: 'mock', clientId: 'reactor', authorizationUrl: `${provider.url}/authorize`, tokenUrl: `${provider.url}/token`, userinfoUrl: `${provider.url}/userinfo`, redirectPath: '/auth/callback', scopes: ['openid'] },
    });
    // No baseUrl: the redirect URI follows the address the browser used. No sessionSecret: one is generated.
    writeFileSync(join(directory, 'sso-deploy.json'), JSON.stringify({ authentication: { oauth2: { clientSecret: 'client-secret' } } }));
    mkdirSync(workdir, { recursive: true });
    reactor = await startServe([site, '--deploy', join(directory, 'sso-deploy.json'), '--workdir', workdir]);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await reactor?.stop();
    await provider?.stop();
  });

  it('goes from a protected page to the provider and back, ending on the page with the session cookie set', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const visited: string[] = [];
    const consoleErrors: string[] = [];
    page.on('response', (response) => visited.push(`${response.status()} ${new URL(response.url()).pathname}`));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${reactor.url}/secret.html`);
    await page.waitForURL(`${reactor.url}/secret.html`);
    await page.waitForSelector('#secret');
    // The URL was secret.html from the first answer (the 401) on: the page's stylesheet is applied once its own load event has fired.
    await page.waitForLoadState('load');
    expect(await page.textContent('#secret')).toBe('The secret page');
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('h1')!).color)).toBe('rgb(0, 128, 0)');
    expect(visited).toEqual(expect.arrayContaining(['401 /secret.html', '302 /auth/login', '302 /authorize', '302 /auth/callback', '200 /secret.html', '200 /style.css']));
    expect(consoleErrors).toEqual([]);
    const cookies = await context.cookies(reactor.url);
    const session = cookies.find((cookie) => cookie.name === 'pkg_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    expect(session!.expires).toBeGreaterThan(Date.now() / 1000);
    expect(cookies.find((cookie) => cookie.name === 'pkg_oauth_state')).toBeUndefined();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'oauth2-login.png') });
    // The session is the browser's only credential: a fresh context is sent to sign in again.
    const stranger = await browser.newPage();
    const response = await stranger.request.get(`${reactor.url}/secret.html`, { maxRedirects: 0 });
    expect(response.status()).toBe(401);
    expect(statSync(join(workdir, 'session-secret')).mode & 0o777).toBe(0o600);
    await context.close();
  }, 60_000);
});

describe('an OAuth2 login state through the built reactor', () => {
  let provider: Awaited<ReturnType<typeof startProvider>>;
  const workdir = join(directory, 'replay-workdir');
  let site: string;
  const deploy = join(directory, 'replay-deploy.json');

  beforeAll(async () => {
    provider = await startProvider();
    site = writePackage('replay-site', {
      oauth2: { enabled: true, provider: 'mock', clientId: 'reactor', authorizationUrl: `${provider.url}/authorize`, tokenUrl: `${provider.url}/token`, userinfoUrl: `${provider.url}/userinfo`, redirectPath: '/auth/callback', scopes: ['openid'] },
    });
    writeFileSync(deploy, JSON.stringify({ authentication: { oauth2: { clientSecret: 'client-secret' } } }));
    mkdirSync(workdir, { recursive: true });
  }, 30_000);
  afterAll(() => provider?.stop());

  // The provider here takes a code more than once: only the reactor's own record refuses the replay.
  it('is accepted once: its callback replayed after a restart on the same workdir, or on the other worker, answers 401', async () => {
    for (const workers of ['1', '2']) {
      let reactor = await startServe([site, '--deploy', deploy, '--workdir', workdir, '--workers', workers]);
      try {
        const { callback, stateCookie } = await startLoginAt(reactor.url);
        const cookie = `pkg_oauth_state=${stateCookie}`;
        expect(setCookies(await request(reactor.url).get(callback).set('Cookie', cookie).expect(302)).has('pkg_session')).toBe(true);
        // Each worker takes its turn at the connections: of several replays, some reach the other worker.
        for (let i = 0; i < 4; i++) expect((await request(reactor.url).get(callback).set('Cookie', cookie).set('Connection', 'close').expect(401)).body.error.code).toBe('OAUTH2_STATE');
        await reactor.stop();
        reactor = await startServe([site, '--deploy', deploy, '--workdir', workdir, '--workers', workers]);
        expect((await request(reactor.url).get(callback).set('Cookie', cookie).expect(401)).body.error.code).toBe('OAUTH2_STATE');
      } finally {
        await reactor.stop();
      }
    }
  }, 60_000);
});
