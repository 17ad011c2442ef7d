import { describe, expect, it } from '@jest/globals';
import { NodeAuthCrypto } from '../../../src/adapters/crypto/node-auth-crypto.js';
import { BasicAuthenticator, CHECKS_UNDER_WAY_MAX, parseBasic } from '../../../src/application/auth/basic-authenticator.js';
import { OAuth2Login } from '../../../src/application/auth/oauth2-login.js';
import { FilePasswordTable, fixedPasswordTable } from '../../../src/application/auth/password-table.js';
import { Sessions } from '../../../src/application/auth/sessions.js';
import type { OAuth2Provider } from '../../../src/application/ports/oauth2-provider.js';
import { OAuth2CallbackError, OAuth2ProviderError, OAuth2StateError, PasswordChecksBusyError, UsageError } from '../../../src/domain/errors.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { MemoryLocalFiles } from '../../fakes/memory-local-files.js';
import { MemorySessionRevocations } from '../../fakes/memory-session-revocations.js';
import { ReversedPasswordHashes } from '../../fakes/reversed-password-hashes.js';
import { ScriptedOAuth2Provider } from '../../fakes/scripted-oauth2-provider.js';

const crypto = new NodeAuthCrypto();
const header = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Reversed hashes whose checks, while holding, wait until released: checks under way, as a slow hash keeps them. */
class HeldPasswordHashes extends ReversedPasswordHashes {
  holding = true;
  readonly held: Array<() => void> = [];

  override async verify(password: string, hash: string): Promise<boolean> {
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    return super.verify(password, hash);
  }

  release(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }
}

describe('parseBasic', () => {
  it('splits at the first colon, so passwords may hold colons', () => {
    expect(parseBasic(header('ann', 'a:b'))).toEqual({ user: 'ann', password: 'a:b' });
    expect(parseBasic(`basic   ${Buffer.from('ann:x').toString('base64')}`)).toEqual({ user: 'ann', password: 'x' });
  });
  it('refuses everything else', () => {
    for (const bad of ['Basic', 'Basic !!!!', 'Basic YW5u', `Basic ${Buffer.from(':x').toString('base64')}`, `Bearer ${Buffer.from('ann:x').toString('base64')}`]) expect(parseBasic(bad)).toBeUndefined();
  });
});

describe('BasicAuthenticator', () => {
  it('verifies once, remembers for a minute, and shares one check among concurrent requests', async () => {
    const clock = new FixedClock(0);
    const hashes = new ReversedPasswordHashes();
    const basic = new BasicAuthenticator(fixedPasswordTable(`ann:${ReversedPasswordHashes.hash('pw')}\n`), hashes, crypto, 'key', { ann: ['admin'] }, clock.millis);
    const [a, b] = await Promise.all([basic.authenticate(header('ann', 'pw')), basic.authenticate(header('ann', 'pw'))]);
    expect(a).toEqual({ name: 'ann', roles: ['admin'], via: 'basic' });
    expect(b).toBe(a);
    expect(hashes.calls).toBe(1);
    expect(basic.authenticate(header('ann', 'pw'))).toBe(a);
    clock.advance(61_000);
    expect(await basic.authenticate(header('ann', 'pw'))).toEqual(a);
    expect(hashes.calls).toBe(2);
  });

  it('checks an unknown user against a decoy as costly as the costliest hash in the file', async () => {
    const hashes = new ReversedPasswordHashes();
    const costly = '$2y$12$' + 'a'.repeat(53);
    const basic = new BasicAuthenticator(fixedPasswordTable(`ann:$2y$04$${'b'.repeat(53)}\nbob:${costly}\ncy:$6$rounds=5000$salt$x\n`), hashes, crypto, 'key', {});
    expect(await basic.authenticate(header('nobody', 'pw'))).toBeUndefined();
    expect(hashes.calls).toBe(1);
    expect(hashes.checked).toEqual([`$decoy$${costly}`]);
    expect(await basic.authenticate(`Basic ${'A'.repeat(5000)}`)).toBeUndefined();
    expect(hashes.calls).toBe(1);
  });

  it('forgets what it remembered when the password file changes', async () => {
    const clock = new FixedClock(0);
    const files = new MemoryLocalFiles();
    files.write('/etc/htpasswd', `ann:${ReversedPasswordHashes.hash('pw')}\n`);
    const table = await FilePasswordTable.open('/etc/htpasswd', files, clock.millis);
    const basic = new BasicAuthenticator(table, new ReversedPasswordHashes(), crypto, 'key', {}, clock.millis);
    expect(await basic.authenticate(header('ann', 'pw'))).toBeDefined();
    files.write('/etc/htpasswd', `ann:${ReversedPasswordHashes.hash('new')}\n`);
    clock.advance(500);
    // Within a second of the last look, the file is not looked at again.
    expect(await basic.authenticate(header('ann', 'new'))).toBeUndefined();
    clock.advance(1100);
    expect(await basic.authenticate(header('ann', 'new'))).toBeDefined();
    expect(await basic.authenticate(header('ann', 'pw'))).toBeUndefined();
  });

  it('refuses a remembered credential whose password was changed in the file more than a second ago, on its very next use', async () => {
    const clock = new FixedClock(0);
    const files = new MemoryLocalFiles();
    files.write('/etc/htpasswd', `ann:${ReversedPasswordHashes.hash('pw')}\nbob:${ReversedPasswordHashes.hash('bob')}\n`);
    const table = await FilePasswordTable.open('/etc/htpasswd', files, clock.millis);
    const basic = new BasicAuthenticator(table, new ReversedPasswordHashes(), crypto, 'key', {}, clock.millis);
    expect(await basic.authenticate(header('ann', 'pw'))).toBeDefined();
    expect(await basic.authenticate(header('bob', 'bob'))).toBeDefined();
    files.write('/etc/htpasswd', `ann:${ReversedPasswordHashes.hash('new')}\n`);
    clock.advance(1100);
    // Several at once, as a burst of requests would come: none gets in on what was remembered.
    expect(await Promise.all([basic.authenticate(header('ann', 'pw')), basic.authenticate(header('ann', 'pw'))])).toEqual([undefined, undefined]);
    expect(await basic.authenticate(header('bob', 'bob'))).toBeUndefined();
    expect(await basic.authenticate(header('ann', 'new'))).toBeDefined();
    // Within the second, the remembered answer stays synchronous.
    clock.advance(100);
    expect(basic.authenticate(header('ann', 'new'))).toEqual({ name: 'ann', roles: [], via: 'basic' });
  });

  it('refuses a guess at once while as many checks as it allows are under way, and still lets remembered credentials in', async () => {
    const hashes = new HeldPasswordHashes();
    const basic = new BasicAuthenticator(fixedPasswordTable(`ann:${ReversedPasswordHashes.hash('pw')}\n`), hashes, crypto, 'key', {});
    hashes.holding = false;
    const ann = await basic.authenticate(header('ann', 'pw'));
    expect(ann).toBeDefined();
    hashes.holding = true;
    const guesses = Array.from({ length: CHECKS_UNDER_WAY_MAX }, (_, i) => basic.authenticate(header('ann', `guess-${i}`)));
    // The same header again shares its check rather than counting twice.
    const again = basic.authenticate(header('ann', 'guess-0'));
    const refused = basic.authenticate(header('ann', 'one-more'));
    await expect(refused).rejects.toThrow(PasswordChecksBusyError);
    expect(hashes.held.length).toBe(CHECKS_UNDER_WAY_MAX);
    expect(basic.authenticate(header('ann', 'pw'))).toBe(ann);
    hashes.release();
    expect(await Promise.all([...guesses, again])).toEqual(Array(CHECKS_UNDER_WAY_MAX + 1).fill(undefined));
    hashes.holding = false;
    expect(await basic.authenticate(header('ann', 'one-more'))).toBeUndefined();
  });

  it('will not start on a password file that does not exist', async () => {
    await expect(FilePasswordTable.open('/missing', new MemoryLocalFiles())).rejects.toThrow(UsageError);
  });
});

describe('Sessions', () => {
  it('carries the claims, looks deploy roles up on every read, and expires', () => {
    const clock = new FixedClock(1000);
    const roles: Record<string, string[]> = { 'jo@example.org': ['admin'] };
    const sessions = new Sessions('secret-0123456789abcdef', crypto, roles, new MemorySessionRevocations(clock.millis), clock.millis);
    const mine = new Set(['mount-a']);
    const cookie = sessions.issue({ name: 'jo@example.org', names: ['jo@example.org', 'sub-1'], roles: ['viewer'] }, 'mount-a');
    expect(sessions.read(cookie, mine)).toEqual({ name: 'jo@example.org', roles: ['viewer', 'admin'], via: 'session' });
    expect(sessions.read(cookie, new Set(['mount-b']))).toBeUndefined();
    clock.advance(8 * 3600 * 1000);
    expect(sessions.read(cookie, mine)).toBeUndefined();
  });

  it('never reads a revoked session again, and revokes it until it would have expired', async () => {
    const revocations = new MemorySessionRevocations(() => 1000);
    const sessions = new Sessions('secret-0123456789abcdef', crypto, {}, revocations, () => 1000);
    const cookie = sessions.issue({ name: 'jo', names: ['jo'], roles: [] }, 'a');
    const other = sessions.issue({ name: 'jo', names: ['jo'], roles: [] }, 'a');
    await expect(sessions.revoke(cookie, 'a')).resolves.toBeUndefined();
    expect(sessions.read(cookie, new Set(['a']))).toBeUndefined();
    expect(sessions.read(other, new Set(['a']))).toBeDefined();
    expect([...revocations.revoked.values()]).toEqual([1000 + 8 * 3600 * 1000]);
    await sessions.revoke('garbage', 'a');
    await sessions.revoke(other, 'b');
    expect(revocations.revoked.size).toBe(1);
  });

  it('writes nothing for a logout of a session already ended: a stale cookie, replayed at the logout, costs no durable write', async () => {
    const revocations = new MemorySessionRevocations(() => 1000);
    const sessions = new Sessions('secret-0123456789abcdef', crypto, {}, revocations, () => 1000);
    const cookie = sessions.issue({ name: 'jo', names: ['jo'], roles: [] }, 'a');
    await sessions.revoke(cookie, 'a');
    await sessions.revoke(cookie, 'a');
    await sessions.revoke(cookie, 'a');
    expect(revocations.writes).toBe(1);
    expect(sessions.read(cookie, new Set(['a']))).toBeUndefined();
  });

  it('holds a session per mount in one cookie: signing in to one keeps the other, signing out of one ends only its own', async () => {
    const revocations = new MemorySessionRevocations(() => 1000);
    const sessions = new Sessions('secret-0123456789abcdef', crypto, {}, revocations, () => 1000);
    const jo = { name: 'jo', names: ['jo'], roles: [] };
    const a = sessions.issue(jo, 'a');
    const both = sessions.issue({ ...jo, name: 'jo-b' }, 'b', a);
    expect(sessions.read(both, new Set(['a']))?.name).toBe('jo');
    expect(sessions.read(both, new Set(['b']))?.name).toBe('jo-b');
    // Signing in to a mount again replaces its session, and keeps the other's.
    const again = sessions.issue({ ...jo, name: 'jo-again' }, 'a', both);
    expect(again.split('~')).toHaveLength(2);
    expect(sessions.read(again, new Set(['a']))?.name).toBe('jo-again');
    const left = await sessions.revoke(again, 'b');
    expect(sessions.read(again, new Set(['b']))).toBeUndefined();
    expect(sessions.read(left!, new Set(['a']))?.name).toBe('jo-again');
    // A value not ours (another reactor's) is kept until newer sessions push it out; the cookie never outgrows what a browser keeps.
    expect(sessions.issue(jo, 'c', `forged~${a}`).split('~').slice(1)).toEqual(['forged', a]);
    let many = `forged~${a}`;
    for (let mount = 0; mount < 40; mount++) many = sessions.issue(jo, `mount-${mount}`, many);
    expect(many.length).toBeLessThan(3000);
    expect(many).not.toContain('forged');
    expect(sessions.read(many, new Set(['mount-39']))).toBeDefined();
  });
});

describe('Sessions of two reactors on one host (cookies are not kept apart by port)', () => {
  it('share the one cookie: signing in to one keeps the other signed in, and signing out of one ends only its own', async () => {
    const jo = { name: 'jo', names: ['jo'], roles: [] };
    const [one, other] = ['secret-of-one-0123456789', 'secret-of-other-0123456789'].map((secret) => new Sessions(secret, crypto, {}, new MemorySessionRevocations(() => 1000), () => 1000));
    const atOne = one!.issue(jo, 'site');
    const atBoth = other!.issue({ ...jo, name: 'jo-other' }, 'site', atOne);
    expect(one!.read(atBoth, new Set(['site']))?.name).toBe('jo');
    expect(other!.read(atBoth, new Set(['site']))?.name).toBe('jo-other');
    // Signing in again to the first keeps the other's session too.
    const again = one!.issue({ ...jo, name: 'jo-again' }, 'site', atBoth);
    expect(other!.read(again, new Set(['site']))?.name).toBe('jo-other');
    const left = await other!.revoke(again, 'site');
    expect(one!.read(left!, new Set(['site']))?.name).toBe('jo-again');
    expect(other!.read(left!, new Set(['site']))).toBeUndefined();
    // Its own expired sessions a reactor drops.
    const later = new Sessions('secret-of-one-0123456789', crypto, {}, new MemorySessionRevocations(), () => 1000 + 9 * 3600 * 1000);
    expect(later.issue(jo, 'elsewhere', atBoth).split('~')).toHaveLength(2);
  });
});

describe('OAuth2Login', () => {
  const config = { enabled: true, clientId: 'client', authorizationUrl: 'https://idp.test/authorize', tokenUrl: 'https://idp.test/token', userinfoUrl: 'https://idp.test/userinfo' };
  const make = (provider: OAuth2Provider, now = () => 0, ended = new MemorySessionRevocations(now)) => new OAuth2Login({ config, clientSecret: 'cs', callbackPath: '/auth/callback' }, 'secret-0123456789abcdef', crypto, provider, ended, now);
  const stateOf = (location: string) => new URL(location).searchParams.get('state')!;

  it('sends the verifier whose S256 hash was the challenge, and the same redirect URI', async () => {
    const provider = new ScriptedOAuth2Provider();
    const login = make(provider);
    const { location, stateCookie } = login.begin('/docs', 'https://site.test');
    const url = new URL(location);
    const done = await login.complete({ code: provider.authorize(location), state: stateOf(location) }, stateCookie);
    expect(done).toEqual({ claims: { name: 'jo@example.org', names: ['jo@example.org', 'sub-1'], roles: ['editor'] }, returnTo: '/docs' });
    const [token] = provider.requests;
    expect(crypto.sha256(token!.codeVerifier)).toBe(url.searchParams.get('code_challenge'));
    expect(token!.redirectUri).toBe('https://site.test/auth/callback');
    expect(token!.redirectUri).toBe(url.searchParams.get('redirect_uri'));
    expect(url.searchParams.get('scope')).toBe('openid email profile');
  });

  it('refuses a state used twice, expired, or from another reactor', async () => {
    const clock = new FixedClock(0);
    const provider = new ScriptedOAuth2Provider();
    const login = make(provider, clock.millis);
    const first = login.begin('/', 'x');
    await login.complete({ code: provider.authorize(first.location), state: stateOf(first.location) }, first.stateCookie);
    await expect(login.complete({ code: 'c', state: stateOf(first.location) }, first.stateCookie)).rejects.toThrow(OAuth2StateError);
    const late = login.begin('/', 'x');
    clock.advance(10 * 60 * 1000 + 1);
    await expect(login.complete({ code: 'c', state: stateOf(late.location) }, late.stateCookie)).rejects.toThrow(/too long/);
    const elsewhere = new OAuth2Login({ config, callbackPath: '/cb' }, 'another-secret-0123456789', crypto, new ScriptedOAuth2Provider(), new MemorySessionRevocations()).begin('/', 'x');
    await expect(login.complete({ code: 'c', state: stateOf(elsewhere.location) }, elsewhere.stateCookie)).rejects.toThrow(OAuth2StateError);
    // Another mount of the same reactor: the same secret, another callback.
    const otherMount = new OAuth2Login({ config, clientSecret: 'cs', callbackPath: '/docs/auth/callback' }, 'secret-0123456789abcdef', crypto, provider, new MemorySessionRevocations(), clock.millis).begin('/', 'x');
    await expect(login.complete({ code: provider.authorize(otherMount.location), state: stateOf(otherMount.location) }, otherMount.stateCookie)).rejects.toThrow(/not made by this reactor for this mount/);
  });

  it('accepts a state once wherever its revocations are shared (another worker, the same reactor restarted), even when the provider takes the code again', async () => {
    const ended = new MemorySessionRevocations(() => 0);
    const provider = new ScriptedOAuth2Provider();
    const [one, other] = [make(provider, () => 0, ended), make(provider, () => 0, ended)];
    const login = one.begin('/', 'x');
    await one.complete({ code: provider.authorize(login.location), state: stateOf(login.location) }, login.stateCookie);
    await expect(other.complete({ code: provider.authorize(login.location), state: stateOf(login.location) }, login.stateCookie)).rejects.toThrow(/used already/);
    // Two callbacks at once, each with a code the provider takes: one session, whichever wins.
    const twice = one.begin('/', 'x');
    const outcomes = await Promise.allSettled([one, other].map((side) => side.complete({ code: provider.authorize(twice.location), state: stateOf(twice.location) }, twice.stateCookie)));
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('reports a callback without code, a provider error, and a userinfo without identity', async () => {
    const provider = new ScriptedOAuth2Provider();
    const login = make(provider);
    const noCode = login.begin('/', 'x');
    await expect(login.complete({ state: stateOf(noCode.location) }, noCode.stateCookie)).rejects.toThrow(OAuth2CallbackError);
    const refused = login.begin('/', 'x');
    await expect(login.complete({ state: stateOf(refused.location), error: 'access_denied' }, refused.stateCookie)).rejects.toThrow(OAuth2ProviderError);
    provider.claims = { name: 'x', email: '' };
    const anonymous = login.begin('/', 'x');
    await expect(login.complete({ code: provider.authorize(anonymous.location), state: stateOf(anonymous.location) }, anonymous.stateCookie)).rejects.toThrow(/email or a subject/);
  });
});
