import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { HtpasswdPasswordHashes } from '../../src/adapters/crypto/htpasswd-password-hashes.js';

// The hashes come from the real tools: Debian's apache2-utils htpasswd and openssl.
function run(tool: string, args: string[]): string {
  return execFileSync(tool, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
}
/** The hash htpasswd would write on the line of `user`. */
const htpasswd = (flags: string[], password: string) => run('htpasswd', ['-nb', ...flags, 'user', password]).replace(/^user:/, '');
const openssl = (flag: string, password: string) => run('openssl', ['passwd', flag, password]);

const hashes = new HtpasswdPasswordHashes();
const verify = (password: string, hash: string) => hashes.verify(password, hash);

const FORMATS: [name: string, prefix: RegExp, make: (password: string) => string][] = [
  ['bcrypt (htpasswd -B -C 4)', /^\$2y\$04\$/, (pw) => htpasswd(['-B', '-C', '4'], pw)],
  ['apr1 (htpasswd -m)', /^\$apr1\$/, (pw) => htpasswd(['-m'], pw)],
  ['SHA-1 (htpasswd -s)', /^\{SHA\}/, (pw) => htpasswd(['-s'], pw)],
  ['crypt (htpasswd -d)', /^[./0-9A-Za-z]{13}$/, (pw) => htpasswd(['-d'], pw)],
  ['md5-crypt (openssl passwd -1)', /^\$1\$/, (pw) => openssl('-1', pw)],
  ['apr1 (openssl passwd -apr1)', /^\$apr1\$/, (pw) => openssl('-apr1', pw)],
  ['SHA-256-crypt (htpasswd -2)', /^\$5\$/, (pw) => htpasswd(['-2'], pw)],
  ['SHA-512-crypt (htpasswd -5)', /^\$6\$/, (pw) => htpasswd(['-5'], pw)],
  ['SHA-256-crypt (openssl passwd -5)', /^\$5\$/, (pw) => openssl('-5', pw)],
  ['SHA-512-crypt (openssl passwd -6)', /^\$6\$/, (pw) => openssl('-6', pw)],
  ['SHA-512-crypt with rounds (htpasswd -5 -r 10000)', /^\$6\$rounds=10000\$/, (pw) => htpasswd(['-5', '-r', '10000'], pw)],
];

// crypt(3) reads only the first 8 bytes and bcrypt the first 72, so the wrong password
// differs in its first character.
const PASSWORDS = ['pw', '', 'ünï✓🔑', 'a:b:c', 'x'.repeat(100)];
const wrong = (password: string) => (password.startsWith('u') ? 'v' : 'u') + password.slice(1);

describe.each(FORMATS)('HtpasswdPasswordHashes, %s', (_name, prefix, make) => {
  it('is the format it claims to be', () => {
    expect(make('pw')).toMatch(prefix);
  });

  it('verifies the right password only; not a wrong one, not the empty one', async () => {
    const hash = make('pw');
    expect(await verify('pw', hash)).toBe(true);
    expect(await verify('pW', hash)).toBe(false);
    expect(await verify('', hash)).toBe(false);
  });

  it.each(PASSWORDS)('verifies %j (empty, unicode, with colons, long) as the tool hashed its UTF-8 bytes', async (password) => {
    const hash = make(password);
    // OpenSSL 3.0 prints "<NULL>" for SHA-crypt of the empty password: there is nothing to check.
    if (hash === '<NULL>') return;
    expect(await verify(password, hash)).toBe(true);
    expect(await verify(wrong(password), hash)).toBe(false);
  });
});

describe('HtpasswdPasswordHashes, bcrypt', () => {
  it('verifies what htpasswd -B writes at its default cost', async () => {
    const hash = htpasswd(['-B'], 'pw');
    expect(hash).toMatch(/^\$2y\$05\$/);
    expect(await verify('pw', hash)).toBe(true);
    expect(await verify('pw ', hash)).toBe(false);
  });

  it.each(['$2a$', '$2b$', '$2y$'])('accepts the %s prefix (the same algorithm)', async (version) => {
    const hash = version + htpasswd(['-B', '-C', '4'], 'pw').slice(4);
    expect(await verify('pw', hash)).toBe(true);
    expect(await verify('px', hash)).toBe(false);
  });
});

describe('HtpasswdPasswordHashes, decoys', () => {
  it.each(FORMATS)('makes a decoy of the scheme and cost of %s, which no password the test knows opens', async (_name, prefix, make) => {
    const like = make('pw');
    const decoy = await hashes.decoyLike(like);
    expect(decoy).not.toBe(like);
    if (!/^[./0-9A-Za-z]{13}$/.test(like) && !like.startsWith('$1$')) expect(decoy.replace(/^\$2[ab]\$/, '$2y$')).toMatch(prefix);
    expect(await verify('pw', decoy)).toBe(false);
  });

  it('never checks a SHA-crypt hash of more than a million rounds (each check would stall the reactor), nor makes such a decoy', async () => {
    const huge = '$6$rounds=999999999$salt$' + 'a'.repeat(86);
    const started = Date.now();
    expect(await verify('pw', huge)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await hashes.decoyLike(huge)).toMatch(/^\$6\$rounds=1000000\$/);
  });

  it('never checks a bcrypt hash costlier than htpasswd writes (cost 17): one at 18 would take half a minute a check here', async () => {
    const atEighteen = htpasswd(['-B', '-C', '4'], 'pw').replace('$04$', '$18$');
    const started = Date.now();
    expect(await verify('pw', atEighteen)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('keeps the bcrypt cost and the SHA-crypt rounds', async () => {
    expect(await hashes.decoyLike(htpasswd(['-B', '-C', '6'], 'pw'))).toMatch(/^\$2[aby]\$06\$/);
    expect(await hashes.decoyLike(htpasswd(['-5', '-r', '20000'], 'pw'))).toMatch(/^\$6\$rounds=20000\$/);
  });
});

describe('HtpasswdPasswordHashes, what is not a hash', () => {
  it.each(['secret', 'abcdefghijklm', '$apr1$plain', '{SHA}plain', 'a:b'])('never accepts the plain-text password %j stored as its own hash', async (plain) => {
    expect(await verify(plain, plain)).toBe(false);
  });

  it('never matches an empty hash, even with the empty password', async () => {
    expect(await verify('', '')).toBe(false);
    expect(await verify('pw', '')).toBe(false);
  });

  function garbled(hash: string): string[] {
    return [
      hash.slice(0, -1),
      hash.slice(0, Math.ceil(hash.length / 2)),
      hash + 'A',
      hash.slice(0, -1) + '!',
      // A character no encoding of these formats uses, in the salt.
      hash.replace(/^(\$[^$]+\$(?:\d\d\$)?|\{SHA\})?./, (head, prefix: string | undefined) => (prefix ?? '') + 'é'),
    ];
  }

  it.each(FORMATS)('returns false, without throwing, for truncated and garbled %s hashes', async (_name, _prefix, make) => {
    const hash = make('pw');
    for (const bad of garbled(hash)) {
      expect(bad).not.toBe(hash);
      await expect(verify('pw', bad)).resolves.toBe(false);
    }
  });

  it.each([
    '$2y$',
    '$2y$04$',
    '$2y$04$' + '!'.repeat(53),
    '$2y$03$' + 'a'.repeat(53),
    '$2y$99$' + 'a'.repeat(53),
    '$2y$aa$' + 'a'.repeat(53),
    '$2x$04$' + 'a'.repeat(53),
    '$apr1$',
    '$apr1',
    '$apr1$$',
    '$1$',
    '$1$salt$',
    '{SHA}',
    '{SHA}not base64!',
    'x5ypAvVHHBZd',
    'x5ypAvVHHBZd!',
    '$5$',
    '$6$salt',
    '$6$rounds=abc$salt$x',
    '$6$rounds=1$salt$' + 'a'.repeat(86),
  ])('returns false, without throwing, for %j', async (bad) => {
    await expect(verify('pw', bad)).resolves.toBe(false);
    await expect(verify('', bad)).resolves.toBe(false);
  });
});
