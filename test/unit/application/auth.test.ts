import { describe, expect, it } from '@jest/globals';
import { NodeAuthCrypto } from '../../../src/adapters/crypto/node-auth-crypto.js';
import { BasicAuthenticator, parseBasic } from '../../../src/application/auth/basic-authenticator.js';
import { OAuth2Login } from '../../../src/application/auth/oauth2-login.js';
import { FilePasswordTable, fixedPasswordTable } from '../../../src/application/auth/password-table.js';
import { Sessions } from '../../../src/application/auth/sessions.js';
import type { LocalFiles } from '../../../src/application/ports/local-files.js';
import type { OAuth2Provider, TokenRequest } from '../../../src/application/ports/oauth2-provider.js';
import type { PasswordHashes } from '../../../src/application/ports/password-hashes.js';
import { OAuth2CallbackError, OAuth2ProviderError, OAuth2StateError, UsageError } from '../../../src/domain/errors.js';

const crypto = new NodeAuthCrypto();
const header = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** "Hashes" that are the password reversed, counted. */
class ReversedHashes implements PasswordHashes {
  calls = 0;
  checked: string[] = [];
  async verify(password: string, hash: string): Promise<boolean> {
    this.calls++;
    this.checked.push(hash);
    return [...password].reverse().join('') === hash;
  }
  async decoyLike(like: string): Promise<string> {
    return `decoy-like:${like}`;
  }
}

class MemoryFiles implements LocalFiles {
  readonly files = new Map<string, { text: string; version: number }>();
  write(path: string, text: string): void {
    this.files.set(path, { text, version: (this.files.get(path)?.version ?? 0) + 1 });
  }
  async read(path: string) {
    const file = this.files.get(path);
    return file && new TextEncoder().encode(file.text);
  }
  async version(path: string) {
    return this.files.get(path)?.version.toString();
  }
  resolve(_from: string, path: string) {
    return path;
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
    let now = 0;
    const hashes = new ReversedHashes();
    const basic = new BasicAuthenticator(fixedPasswordTable('ann:wp\n'), hashes, crypto, 'key', { ann: ['admin'] }, () => now);
    const [a, b] = await Promise.all([basic.authenticate(header('ann', 'pw')), basic.authenticate(header('ann', 'pw'))]);
    expect(a).toEqual({ name: 'ann', roles: ['admin'], via: 'basic' });
    expect(b).toBe(a);
    expect(hashes.calls).toBe(1);
    expect(basic.authenticate(header('ann', 'pw'))).toBe(a);
    now = 61_000;
    expect(await basic.authenticate(header('ann', 'pw'))).toEqual(a);
    expect(hashes.calls).toBe(2);
  });

  it('checks an unknown user against a decoy as costly as the costliest hash in the file', async () => {
    const hashes = new ReversedHashes();
    const costly = '$2y$12$' + 'a'.repeat(53);
    const basic = new BasicAuthenticator(fixedPasswordTable(`ann:$2y$04$${'b'.repeat(53)}\nbob:${costly}\ncy:$6$rounds=5000$salt$x\n`), hashes, crypto, 'key', {});
    expect(await basic.authenticate(header('nobody', 'pw'))).toBeUndefined();
    expect(hashes.calls).toBe(1);
    expect(hashes.checked).toEqual([`decoy-like:${costly}`]);
    expect(await basic.authenticate(`Basic ${'A'.repeat(5000)}`)).toBeUndefined();
    expect(hashes.calls).toBe(1);
  });

  it('forgets what it remembered when the password file changes', async () => {
    let now = 0;
    const files = new MemoryFiles();
    files.write('/etc/htpasswd', 'ann:wp\n');
    const table = await FilePasswordTable.open('/etc/htpasswd', files, () => now);
    const basic = new BasicAuthenticator(table, new ReversedHashes(), crypto, 'key', {}, () => now);
    expect(await basic.authenticate(header('ann', 'pw'))).toBeDefined();
    files.write('/etc/htpasswd', 'ann:wen\n');
    now = 500;
    // Within a second of the last look, the file is not looked at again.
    expect(await basic.authenticate(header('ann', 'new'))).toBeUndefined();
    now = 1600;
    expect(await basic.authenticate(header('ann', 'new'))).toBeDefined();
    expect(await basic.authenticate(header('ann', 'pw'))).toBeUndefined();
  });

  it('will not start on a password file that does not exist', async () => {
    await expect(FilePasswordTable.open('/missing', new MemoryFiles())).rejects.toThrow(UsageError);
  });
});

describe('Sessions', () => {
  it('carries the claims, looks deploy roles up on every read, and expires', () => {
    let now = 1000;
    const roles: Record<string, string[]> = { 'jo@example.org': ['admin'] };
    const revoked = new Map<string, number>();
    const sessions = new Sessions('secret-0123456789abcdef', crypto, roles, { has: (id) => revoked.has(id), revoke: async (id, until) => void revoked.set(id, until) }, () => now);
    const mine = new Set(['mount-a']);
    const cookie = sessions.issue({ name: 'jo@example.org', names: ['jo@example.org', 'sub-1'], roles: ['viewer'] }, 'mount-a');
    expect(sessions.read(cookie, mine)).toEqual({ name: 'jo@example.org', roles: ['viewer', 'admin'], via: 'session' });
    expect(sessions.read(cookie, new Set(['mount-b']))).toBeUndefined();
    now += 8 * 3600 * 1000;
    expect(sessions.read(cookie, mine)).toBeUndefined();
  });

  it('never reads a revoked session again, and revokes it until it would have expired', async () => {
    const revoked = new Map<string, number>();
    const sessions = new Sessions('secret-0123456789abcdef', crypto, {}, { has: (id) => revoked.has(id), revoke: async (id, until) => void revoked.set(id, until) }, () => 1000);
    const cookie = sessions.issue({ name: 'jo', names: ['jo'], roles: [] }, 'a');
    const other = sessions.issue({ name: 'jo', names: ['jo'], roles: [] }, 'a');
    await sessions.revoke(cookie);
    expect(sessions.read(cookie, new Set(['a']))).toBeUndefined();
    expect(sessions.read(other, new Set(['a']))).toBeDefined();
    expect([...revoked.values()]).toEqual([1000 + 8 * 3600 * 1000]);
    await sessions.revoke('garbage');
    expect(revoked.size).toBe(1);
  });
});

class ScriptedProvider implements OAuth2Provider {
  requests: TokenRequest[] = [];
  userinfoBody: Record<string, unknown> = { sub: 'sub-1', email: 'jo@example.org', email_verified: true, roles: ['editor', 3] };
  async exchangeCode(request: TokenRequest) {
    this.requests.push(request);
    return { accessToken: 'token' };
  }
  async userinfo() {
    return this.userinfoBody;
  }
}

describe('OAuth2Login', () => {
  const config = { enabled: true, clientId: 'client', authorizationUrl: 'https://idp.test/authorize', tokenUrl: 'https://idp.test/token', userinfoUrl: 'https://idp.test/userinfo' };
  const make = (provider: OAuth2Provider, now = () => 0) => new OAuth2Login({ config, clientSecret: 'cs', callbackPath: '/auth/callback', baseUrl: 'https://site.test' }, 'secret-0123456789abcdef', crypto, provider, now);
  const stateOf = (location: string) => new URL(location).searchParams.get('state')!;

  it('sends the verifier whose S256 hash was the challenge, and the same redirect URI', async () => {
    const provider = new ScriptedProvider();
    const login = make(provider);
    const { location, stateCookie } = login.begin('/docs', 'http://ignored');
    const url = new URL(location);
    const done = await login.complete({ code: 'c', state: stateOf(location) }, stateCookie);
    expect(done).toEqual({ claims: { name: 'jo@example.org', names: ['jo@example.org', 'sub-1'], roles: ['editor'] }, returnTo: '/docs' });
    const [token] = provider.requests;
    expect(crypto.sha256(token!.codeVerifier)).toBe(url.searchParams.get('code_challenge'));
    expect(token!.redirectUri).toBe('https://site.test/auth/callback');
    expect(token!.redirectUri).toBe(url.searchParams.get('redirect_uri'));
    expect(url.searchParams.get('scope')).toBe('openid email profile');
  });

  it('refuses a state used twice, expired, or from another reactor', async () => {
    let now = 0;
    const login = make(new ScriptedProvider(), () => now);
    const first = login.begin('/', 'x');
    await login.complete({ code: 'c', state: stateOf(first.location) }, first.stateCookie);
    await expect(login.complete({ code: 'c', state: stateOf(first.location) }, first.stateCookie)).rejects.toThrow(OAuth2StateError);
    const late = login.begin('/', 'x');
    now = 10 * 60 * 1000 + 1;
    await expect(login.complete({ code: 'c', state: stateOf(late.location) }, late.stateCookie)).rejects.toThrow(/too long/);
    const elsewhere = new OAuth2Login({ config, callbackPath: '/cb' }, 'another-secret-0123456789', crypto, new ScriptedProvider()).begin('/', 'x');
    await expect(login.complete({ code: 'c', state: stateOf(elsewhere.location) }, elsewhere.stateCookie)).rejects.toThrow(OAuth2StateError);
  });

  it('reports a callback without code, a provider error, and a userinfo without identity', async () => {
    const provider = new ScriptedProvider();
    const login = make(provider);
    const noCode = login.begin('/', 'x');
    await expect(login.complete({ state: stateOf(noCode.location) }, noCode.stateCookie)).rejects.toThrow(OAuth2CallbackError);
    const refused = login.begin('/', 'x');
    await expect(login.complete({ state: stateOf(refused.location), error: 'access_denied' }, refused.stateCookie)).rejects.toThrow(OAuth2ProviderError);
    provider.userinfoBody = { name: 'x', email: '' };
    const anonymous = login.begin('/', 'x');
    await expect(login.complete({ code: 'c', state: stateOf(anonymous.location) }, anonymous.stateCookie)).rejects.toThrow(/email or a subject/);
  });
});
