import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { startReactor } from '../support/reactor-fixture.js';

// "é" composed (NFC, as a page is typed) and decomposed (NFD, as macOS names files).
const NFC = '\u00e9';
const NFD = 'e\u0301';
const encoded = (text: string) => encodeURIComponent(text);

const site = demoPackage({
  [`content/caf${NFD}.html`]: '<p>cafe, named on macOS</p>',
  [`content/na${NFC}ve.html`]: '<p>naive, named composed</p>',
  [`content/d${NFD}p/index.html`]: '<p>folder index</p>',
  [`content/secr${NFD}t.html`]: '<p>secret</p>',
  'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, realm: 'r' } } }),
  'routes.json': JSON.stringify({
    routes: [
      { path: '/', resource: 'content/index.html' },
      { path: `/r${NFC}sum${NFC}`, resource: `content/na${NFC}ve.html` },
      { path: `/secr${NFD}t.html`, resource: `content/secr${NFD}t.html`, accessControl: { roles: ['admin'] } },
    ],
  }),
});

const menu = demoPackage({ 'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'menu' }), 'content/index.html': '<p>menu</p>' });

const directory = mkdtempSync(join(tmpdir(), 'spellings-'));
const credentials = `Basic ${Buffer.from('ann:pw').toString('base64')}`;
let fixture: Awaited<ReturnType<typeof startReactor>>;
beforeAll(async () => {
  writeFileSync(join(directory, 'htpasswd'), `ann:{SHA}${createHash('sha1').update('pw').digest('base64')}\n`);
  writeFileSync(join(directory, 'deploy.json'), JSON.stringify({ authentication: { basicAuth: { passwdFile: 'htpasswd' }, sessionSecret: 'spellings-session-secret-0123456789' } }));
  fixture = await startReactor(new MemoryOpener().add('site', site).add('menu', menu), [{ source: 'site' }, { prefix: `/m${NFC}nu/`, source: 'menu' }], { deploy: join(directory, 'deploy.json'), workdir: directory });
});
afterAll(async () => {
  await fixture.stop();
  rmSync(directory, { recursive: true, force: true });
});

const get = (path: string) => request(fixture.http).get(path).set('Authorization', credentials).redirects(0);

describe('a name asked for in another Unicode spelling than the package holds', () => {
  it('serves the file: a link typed composed (NFC) to a file named decomposed (NFD), and the reverse', async () => {
    expect((await get(`/caf${encoded(NFC)}.html`).expect(200)).text).toBe('<p>cafe, named on macOS</p>');
    expect((await get(`/caf${encoded(NFD)}.html`).expect(200)).text).toBe('<p>cafe, named on macOS</p>');
    expect((await get(`/na${encoded(NFD)}ve.html`).expect(200)).text).toBe('<p>naive, named composed</p>');
    expect((await get(`/r${encoded(NFD)}sum${encoded(NFC)}`).expect(200)).text).toBe('<p>naive, named composed</p>');
    // One representation whichever the spelling: the same ETag.
    expect((await get(`/caf${encoded(NFC)}.html`)).headers.etag).toBe((await get(`/caf${encoded(NFD)}.html`)).headers.etag);
  });

  it('finds a folder under either spelling, and redirects to the package spelling, ASCII-encoded', async () => {
    expect((await get(`/d${encoded(NFC)}p/`).expect(200)).text).toBe('<p>folder index</p>');
    const moved = await get(`/d${encoded(NFC)}p`).expect(301);
    expect(moved.headers.location).toBe(`/d${encoded(NFD)}p/`);
  });

  it("keeps the access rule of the file's own route: another spelling reaches it, never around it", async () => {
    expect((await get(`/secr${encoded(NFC)}t.html`)).status).toBe(403);
    expect((await get(`/secr${encoded(NFD)}t.html`)).status).toBe(403);
  });

  it('follows the overlay: a file written is found under its other spelling, and a deleted one under none', async () => {
    await request(fixture.http).put(`/new/f${encoded(NFD)}e.txt`).set('Authorization', credentials).set('Content-Type', 'text/plain').send('written').expect(200);
    expect((await get(`/new/f${encoded(NFC)}e.txt`).expect(200)).text).toBe('written');
    await request(fixture.http).delete(`/caf${encoded(NFD)}.html`).set('Authorization', credentials).expect(204);
    await get(`/caf${encoded(NFC)}.html`).expect(404);
    await get(`/caf${encoded(NFD)}.html`).expect(404);
  });

  it('reaches a mount under either spelling of its path, its root without the slash redirected to the mount path', async () => {
    expect((await get(`/m${encoded(NFD)}nu/`).expect(200)).text).toBe('<p>menu</p>');
    expect((await get(`/m${encoded(NFD)}nu/index.html`).expect(200)).text).toBe('<p>menu</p>');
    expect((await get(`/m${encoded(NFD)}nu`).expect(301)).headers.location).toBe(`/m${encoded(NFC)}nu/`);
  });

  it('still answers 404 for a name the package holds in no spelling', async () => {
    await get(`/caf${encoded('\u00e8')}.html`).expect(404);
  });
});
