import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { PORT } from '../../src/composition/service-ids.js';
import { MemoryOverlayStore } from '../fakes/memory-overlay-store.js';
import { demoPackage } from '../support/demo-package.js';
import { productionContainer, swap } from '../support/production-container.js';
import { startReactorIn } from '../support/reactor-fixture.js';

// A package loaded again while served (`--watch`) is served by its new routes.json, the
// access rules of its dataset routes included: they kept the rules read at start.

const basic = (user: string) => `Basic ${Buffer.from(`${user}:${user}-pw`).toString('base64')}`;
const sha = (user: string) => `${user}:{SHA}${createHash('sha1').update(`${user}-pw`).digest('base64')}`;

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function routes(itemsRule?: object): string {
  return JSON.stringify({ routes: [{ path: '/', resource: 'content/index.html' }, { path: '/api/v1/data/items', dataset: 'items', ...(itemsRule ? { accessControl: itemsRule } : {}) }] });
}

/** A package directory with a dataset, and basic auth where `authenticated`. */
function siteDirectory(routesJson: string, authenticated: boolean): string {
  const directory = mkdtempSync(join(tmpdir(), 'reloaded-rules-'));
  directories.push(directory);
  const files = demoPackage({
    ...(authenticated ? { 'authentication.json': JSON.stringify({ authentication: { basicAuth: { enabled: true, passwdFile: 'auth/htpasswd' } } }), 'auth/htpasswd': sha('ann') + '\n' } : {}),
    'data/items.json': JSON.stringify([{ id: 'a' }]),
    'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
    'routes.json': routesJson,
  });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(directory, path, '..'), { recursive: true });
    writeFileSync(join(directory, path), content);
  }
  return directory;
}

async function serve(directory: string) {
  const workdir = mkdtempSync(join(tmpdir(), 'reloaded-rules-work-'));
  directories.push(workdir);
  return startReactorIn(productionContainer(swap(PORT.OverlayStore, new MemoryOverlayStore())), [{ source: directory }], { workdir });
}

describe('route rules of a package loaded again while served', () => {
  it('close a dataset the new routes.json restricts, and open one it no longer restricts, on its data API and in GraphQL', async () => {
    const directory = siteDirectory(routes(), true);
    const running = await serve(directory);
    try {
      const mount = running.reactor.all()[0]!;
      await request(running.http).get('/api/v1/data/items').set('Authorization', basic('ann')).expect(200);
      writeFileSync(join(directory, 'routes.json'), routes({ roles: ['admin'] }));
      await running.reactor.reload(mount);
      expect((await request(running.http).get('/api/v1/data/items').set('Authorization', basic('ann')).expect(403)).body.error.code).toBe('FORBIDDEN');
      await request(running.http).post('/graphql').set('Authorization', basic('ann')).send({ query: '{ items { id } }' }).expect(403);
      writeFileSync(join(directory, 'routes.json'), routes());
      await running.reactor.reload(mount);
      await request(running.http).get('/api/v1/data/items').set('Authorization', basic('ann')).expect(200);
    } finally {
      await running.stop();
    }
  });

  it('that a mount served without authentication or rules cannot enforce are reported, and the last good version keeps serving', async () => {
    const directory = siteDirectory(routes(), false);
    const running = await serve(directory);
    const problems: string[] = [];
    running.reactor.onEvent((event) => void (event.kind === 'reload-failed' && problems.push(event.problem)));
    try {
      writeFileSync(join(directory, 'routes.json'), routes({ roles: ['admin'] }));
      writeFileSync(join(directory, 'content/added.html'), '<p>added</p>');
      await running.reactor.reload(running.reactor.all()[0]!);
      expect(problems).toEqual([expect.stringMatching(/routes\.json.*accessControl.*restart/)]);
      // Not the new version's half: its page is not served, nor its rule ignored.
      await request(running.http).get('/added.html').expect(404);
      await request(running.http).get('/api/v1/data/items').expect(200);
    } finally {
      await running.stop();
    }
  });
});
