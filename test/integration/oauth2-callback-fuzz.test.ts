import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { FetchOAuth2Provider } from '../../src/adapters/oauth2/fetch-oauth2-provider.js';
import { PORT } from '../../src/composition/service-ids.js';
import { MemoryOpener } from '../fakes/memory-package-opener.js';
import { VALID_METADATA, demoPackage } from '../support/demo-package.js';
import { setCookies, startLoginAt, startProvider } from '../support/oauth2-provider.js';
import { temporaryDirectory } from '../support/paths.js';
import { swap } from '../support/production-container.js';
import { startReactor } from '../support/reactor-fixture.js';

jest.setTimeout(120_000);

/**
 * The OAuth2 callback takes its query from whoever sends the browser there, and the
 * state cookie from the browser: a login the reactor did not start in this browser must
 * never become a session. Each run starts two real logins at a real provider, then answers
 * the callback with the first's parts tampered with, swapped for the second's, or left out;
 * only a state and cookie of one login, both untouched, with a code, may sign in.
 */

const work = temporaryDirectory('cap-oauth2-fuzz-');
let provider: Awaited<ReturnType<typeof startProvider>>;
let fixture: Awaited<ReturnType<typeof startReactor>>;

beforeAll(async () => {
  provider = await startProvider();
  const deploy = join(work.path, 'deploy.json');
  writeFileSync(deploy, JSON.stringify({ baseUrl: 'http://reactor.test', authentication: { oauth2: { clientSecret: 'client-secret' }, sessionSecret: 'deploy-session-secret-0123456789', roles: { 'jo@example.org': ['admin'] } } }));
  const site = demoPackage({
    'metadata.json': JSON.stringify({ ...VALID_METADATA, name: 'guarded' }),
    'authentication.json': JSON.stringify({
      authentication: { oauth2: { enabled: true, provider: 'mock', clientId: 'reactor-client', authorizationUrl: `${provider.url}/authorize`, tokenUrl: `${provider.url}/token`, userinfoUrl: `${provider.url}/userinfo` } },
    }),
  });
  fixture = await startReactor(new MemoryOpener().add('site', site), [{ source: 'site' }], { deploy, workdir: work.path }, swap(PORT.OAuth2Provider, new FetchOAuth2Provider(2000)));
});
afterAll(async () => {
  await fixture.stop();
  await provider.stop();
  work.remove();
});

type Part = 'kept' | 'other' | 'absent' | 'flipped' | 'cut' | 'random';
const part = fc.oneof({ weight: 4, arbitrary: fc.constant<Part>('kept') }, fc.constantFrom<Part>('other', 'absent', 'flipped', 'cut', 'random'));

/** A value as a part says: the login's own, the other login's, none, or one changed. */
function shaped(value: string, other: string, how: Part, noise: string, at: number): string | undefined {
  switch (how) {
    case 'kept':
      return value;
    case 'other':
      return other;
    case 'absent':
      return undefined;
    case 'flipped': {
      const i = at % value.length;
      return `${value.slice(0, i)}${value[i] === 'A' ? 'B' : 'A'}${value.slice(i + 1)}`;
    }
    case 'cut':
      return value.slice(0, at % value.length);
    case 'random':
      return noise;
  }
}

describe('the OAuth2 callback from strangers', () => {
  it(`signs in only the login it started, with the state and cookie untouched (${process.env.FUZZ_RUNS ?? 150} runs; FUZZ_RUNS sets more)`, async () => {
    let signedIn = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({ state: part, cookie: part, code: fc.constantFrom<Part>('kept', 'kept', 'absent', 'random', 'other'), noise: fc.string({ maxLength: 60 }), at: fc.nat(), extra: fc.constantFrom('', '&error=access_denied', '&state=second', '&code=second', '&iss=http://evil.test') }),
        async ({ state: stateHow, cookie: cookieHow, code: codeHow, noise, at, extra }) => {
          const mine = await startLoginAt(fixture.http, '/');
          const theirs = await startLoginAt(fixture.http, '/');
          const query = new URLSearchParams(mine.callback.split('?')[1]);
          const otherQuery = new URLSearchParams(theirs.callback.split('?')[1]);
          const sent = new URLSearchParams();
          const state = shaped(query.get('state')!, otherQuery.get('state')!, stateHow, noise, at);
          const code = shaped(query.get('code')!, otherQuery.get('code')!, codeHow, noise, at);
          if (code !== undefined) sent.set('code', code);
          if (state !== undefined) sent.set('state', state);
          const cookie = shaped(mine.stateCookie, theirs.stateCookie, cookieHow, noise, at);
          let callback = request(fixture.http).get(`/auth/callback?${sent.toString()}${extra}`);
          if (cookie !== undefined) callback = callback.set('Cookie', `pkg_oauth_state=${encodeURIComponent(cookie)}`);
          const answer = await callback;
          // 502 is the provider's refusal (its `error`, or a code it would not exchange), as DECISIONS.md has it; no other 5xx.
          expect(answer.status < 500 || answer.status === 502).toBe(true);
          const session = setCookies(answer).get('pkg_session');
          // The other login's state and cookie together are that login, untouched: it may sign in as well as this one.
          const onePair = stateHow === cookieHow && (stateHow === 'kept' || stateHow === 'other');
          // A repeated parameter is refused whichever copy is the login's own.
          const untouched = onePair && code !== undefined && (extra === '' || extra.startsWith('&iss='));
          // A code the provider did not issue may still be taken by this mock provider: only state and cookie decide here.
          if (!untouched) expect([answer.status, session?.value ?? 'no session']).toEqual([answer.status, 'no session']);
          if (untouched && codeHow === stateHow) expect([answer.status, typeof session?.value]).toEqual([302, 'string']);
          if (session?.value) signedIn++;
        },
      ),
      // The first runs are each login left untouched: the property then holds over logins that sign in, whatever the seed.
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 150),
        examples: [[{ state: 'kept', cookie: 'kept', code: 'kept', noise: '', at: 0, extra: '' }], [{ state: 'other', cookie: 'other', code: 'other', noise: '', at: 0, extra: '' }]],
      },
    );
    expect(signedIn).toBeGreaterThan(0);
  });
});
