import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createDecipheriv, createHash, privateDecrypt, constants } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { failingServe, startServe } from '../support/serve-process.js';
import { readZipEntries, writeZipEntries } from '../support/zip-entries.js';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-signing-');
const at = (name: string) => join(work.path, name);
const gnupg = at('gnupg');
const gpg = (args: string[]) => execFileSync('gpg', ['--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { env: { ...process.env, GNUPGHOME: gnupg }, encoding: 'utf8', stdio: 'pipe' });
const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: work.path, stdio: 'pipe' });
let cap: string;

beforeAll(() => {
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'key.pem']);
  openssl(['pkey', '-in', 'key.pem', '-pubout', '-out', 'pub.pem']);
  openssl(['req', '-x509', '-new', '-key', 'key.pem', '-subj', '/CN=signer', '-days', '1', '-out', 'cert.pem']);
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'other.pem']);
  openssl(['pkey', '-in', 'other.pem', '-pubout', '-out', 'other-pub.pem']);
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024', '-out', 'weak.pem']);
  mkdirSync(gnupg, { mode: 0o700 });
  gpg(['--quick-gen-key', 'Signer <signer@example.org>', 'future-default', 'default', 'never']);
  writeFileSync(at('gpg-secret.asc'), gpg(['--armor', '--export-secret-keys', 'signer@example.org']));
  writeFileSync(at('gpg-public.asc'), gpg(['--armor', '--export', 'signer@example.org']));
  expect(runPkg(['package', 'pack', EXAMPLE_SITE, '-o', work.path]).status).toBe(0);
  cap = at('example-site-1.0.0.cap');
});
afterAll(() => {
  execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gnupg } });
  work.remove();
});

/** The signed payload as SPEC.md defines it, rebuilt from an unpacked package by this test alone. */
function payloadOf(directory: string): Buffer {
  const { checksums } = JSON.parse(readFileSync(join(directory, 'security.json'), 'utf8')).security.integrityChecks;
  const paths = Object.keys(checksums).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.concat(paths.map((path) => readFileSync(join(directory, path))));
}

function unpacked(capFile: string, name: string): string {
  const destination = at(name);
  expect(runPkg(['package', 'unpack', capFile, '-o', destination]).status).toBe(0);
  return destination;
}

describe('RSA signatures', () => {
  it('signs a .cap with an openssl key and certificate; openssl verifies the payload; so does verify-signature', () => {
    const signed = at('signed.cap');
    const run = runPkg(['package', 'sign', cap, '--key', at('key.pem'), '--cert', at('cert.pem'), '-o', signed]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const directory = unpacked(signed, 'signed');
    writeFileSync(at('payload.bin'), payloadOf(directory));
    expect(openssl(['dgst', '-sha256', '-verify', join(directory, 'signature.pub.pem'), '-signature', join(directory, 'signature.sig'), 'payload.bin']).toString()).toMatch(/Verified OK/);
    expect(JSON.parse(readFileSync(join(directory, 'security.json'), 'utf8')).security.digitalSignatures).toEqual({ publicKey: 'signature.pub.pem', signatureFile: 'signature.sig' });
    expect(runPkg(['package', 'verify-signature', signed, '--cert', at('cert.pem')]).status).toBe(0);
    expect(runPkg(['package', 'verify-signature', signed, '--cert', at('pub.pem')]).status).toBe(0);
    const other = runPkg(['package', 'verify-signature', signed, '--cert', at('other-pub.pem')]);
    expect(other.status).toBe(1);
    expect(other.stdout).toMatch(/different key/);
    expect(runPkg(['package', 'validate', signed]).status).toBe(0);
  });

  it('signs a directory in place, and a tampered file or a swapped public key is caught', () => {
    const directory = at('dir-signed');
    cpSync(EXAMPLE_SITE, directory, { recursive: true });
    expect(runPkg(['package', 'sign', directory, '--key', at('key.pem')]).status).toBe(0);
    expect(runPkg(['package', 'verify-signature', directory, '--json']).stdout).toMatch(/"valid": true/);
    writeFileSync(join(directory, 'content/about.html'), '<p>tampered</p>');
    const tampered = runPkg(['package', 'verify-signature', directory]);
    expect(tampered.status).toBe(1);
    expect(tampered.stdout).toMatch(/FAIL signature/);

    const swapped = at('dir-swapped');
    cpSync(EXAMPLE_SITE, swapped, { recursive: true });
    expect(runPkg(['package', 'sign', swapped, '--key', at('key.pem')]).status).toBe(0);
    // Swap the embedded key and fix its checksum, so only the signature can tell.
    cpSync(at('other-pub.pem'), join(swapped, 'signature.pub.pem'));
    const security = JSON.parse(readFileSync(join(swapped, 'security.json'), 'utf8'));
    security.security.integrityChecks.checksums['signature.pub.pem'] = execFileSync('sha256sum', [join(swapped, 'signature.pub.pem')], { encoding: 'utf8' }).split(' ')[0];
    writeFileSync(join(swapped, 'security.json'), JSON.stringify(security));
    expect(runPkg(['package', 'verify-signature', swapped]).status).toBe(1);
    for (const command of ['info', 'test', 'validate']) {
      const run = runPkg(['package', command, swapped]);
      expect(run.status).toBe(1);
      expect(run.stdout + run.stderr).toMatch(command === 'validate' ? /FAIL signature/ : /SignatureMismatchError/);
    }
    return failingServe([swapped]).then((failed) => {
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/SignatureMismatchError/);
    });
  });

  it('content-validity re-checks a signed package on every request: signatureValid turns false when a file changes', async () => {
    const directory = at('dir-served');
    cpSync(EXAMPLE_SITE, directory, { recursive: true });
    expect(runPkg(['package', 'sign', directory, '--key', at('key.pem')]).status).toBe(0);
    const running = await startServe([directory]);
    try {
      const validity = async () => ((await (await fetch(`${running.url}/api/v1/introspect/content-validity`)).json()) as { contentValidity: Array<Record<string, unknown>> }).contentValidity[0];
      expect(await validity()).toMatchObject({ valid: true, signed: true, encrypted: false, signatureValid: true });
      writeFileSync(join(directory, 'content/about.html'), '<p>changed after load</p>');
      expect(await validity()).toMatchObject({ valid: false, signed: true, signatureValid: false, reason: ['checksum mismatch: content/about.html'] });
    } finally {
      await running.stop();
    }
  });

  it('an unsigned package fails verification with exit 1', () => {
    const run = runPkg(['package', 'verify-signature', cap]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/not signed/);
  });

  it.each([
    ['a 1024-bit key', ['--key', 'weak.pem'], /KeyError: .*1024/],
    ['a certificate of another key', ['--key', 'other.pem', '--cert', 'cert.pem'], /KeyError: .*certificate/],
    ['a PEM that is not a key', ['--key', 'cert.pem'], /KeyError/],
    ['a key file that does not exist', ['--key', 'missing.pem'], /UsageError: cannot read --key/],
  ])('refuses %s with a typed error, exit 1 (2 for usage), and leaves the package untouched', (_name, options, message) => {
    const before = readFileSync(cap);
    const run = runPkg(['package', 'sign', cap, ...options.map((option) => (option.endsWith('.pem') ? at(option) : option))]);
    expect(run.status).toBe(message.source.includes('UsageError') ? 2 : 1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(cap).equals(before)).toBe(true);
    expect(readdirSync(work.path).filter((name) => name.includes('partial'))).toEqual([]);
  });
});

describe('trusted signers', () => {
  const fingerprint = (publicKey: string) => `SHA256:${execFileSync('sha256sum', { input: execFileSync('openssl', ['pkey', '-pubin', '-in', at(publicKey), '-outform', 'DER']), encoding: 'utf8' }).split(' ')[0]}`;
  let signed: string;
  let resigned: string;
  beforeAll(() => {
    signed = at('trust-signed.cap');
    resigned = at('trust-resigned.cap');
    expect(runPkg(['package', 'sign', cap, '--key', at('key.pem'), '-o', signed]).status).toBe(0);
    // An attacker's copy: the same package re-signed whole with a key of their own.
    expect(runPkg(['package', 'sign', signed, '--key', at('other.pem'), '-o', resigned]).status).toBe(0);
  });

  it('without a trusted key, verify-signature passes a re-signed package but says it proves integrity only, and names the signer', () => {
    const run = runPkg(['package', 'verify-signature', resigned]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`signed by key ${fingerprint('other-pub.pem')}`);
    expect(run.stdout).toMatch(/NOTE no trusted key given .*proves the package is intact, not who signed it/);
  });

  it('with --trust or PKG_TRUST, the re-signed and the unsigned package fail, the genuine one passes as trusted', () => {
    const trusted = runPkg(['package', 'verify-signature', signed, '--trust', at('cert.pem')]);
    expect(trusted.status).toBe(0);
    expect(trusted.stdout).toContain(`signed by trusted key ${fingerprint('pub.pem')}`);
    expect(trusted.stdout).not.toMatch(/NOTE/);
    const json = JSON.parse(runPkg(['package', 'verify-signature', signed, '--trust', at('other-pub.pem'), '--trust', at('pub.pem'), '--json']).stdout);
    expect(json).toMatchObject({ valid: true, trusted: true, signer: fingerprint('pub.pem') });
    for (const run of [runPkg(['package', 'verify-signature', resigned, '--trust', at('pub.pem')]), runPkg(['package', 'verify-signature', resigned], { env: { PKG_TRUST: `${at('cert.pem')}:${at('pub.pem')}` } })]) {
      expect(run.status).toBe(1);
      expect(run.stdout).toContain(`FAIL signature (RSA-SHA256): the package is signed by key ${fingerprint('other-pub.pem')}, a different key than the trusted ones given`);
    }
    const unsigned = runPkg(['package', 'verify-signature', cap, '--trust', at('pub.pem')]);
    expect(unsigned.status).toBe(1);
    expect(unsigned.stdout).toMatch(/not signed .*only packages signed by a trusted key are accepted/);
    writeFileSync(at('not-a-key.txt'), 'not a key');
    const notAKey = runPkg(['package', 'verify-signature', signed, '--trust', at('not-a-key.txt')]);
    expect(notAKey.status).toBe(1);
    expect(notAKey.stderr).toMatch(/KeyError: trusted key .*not-a-key.txt holds neither/);
    // The signer's own private key would verify, but it is no file to hand to those who trust it.
    const privateKey = runPkg(['package', 'verify-signature', signed, '--trust', at('key.pem')]);
    expect([privateKey.status, privateKey.stdout]).toEqual([1, '']);
    expect(privateKey.stderr).toMatch(/^error: KeyError: trusted key .*key.pem holds a private key: trust the signer's public key or certificate/);
  });

  it('a reactor given --trust or PKG_TRUST refuses other signers and unsigned packages, and serves the trusted one', async () => {
    for (const [args, env] of [[['--trust', at('pub.pem')], {}], [[], { PKG_TRUST: at('pub.pem') }]] as const) {
      for (const refused of [resigned, cap]) {
        const failed = await failingServe([refused, ...args], { env });
        expect(failed.code).toBe(1);
        expect(failed.stderr).toMatch(/SignatureMismatchError/);
      }
      const running = await startServe([signed, ...args], { env });
      try {
        expect((await fetch(`${running.url}/about`)).status).toBe(200);
        const validity = ((await (await fetch(`${running.url}/api/v1/introspect/content-validity`)).json()) as { contentValidity: Array<Record<string, unknown>> }).contentValidity[0];
        expect(validity).toMatchObject({ valid: true, signed: true, signatureValid: true });
      } finally {
        expect(await running.stop()).toBe(0);
      }
    }
  });

  it('trusts OpenPGP keys too', () => {
    const pgp = at('trust-pgp.cap');
    expect(runPkg(['package', 'sign', cap, '--openpgp', '--key', at('gpg-secret.asc'), '-o', pgp]).status).toBe(0);
    const run = runPkg(['package', 'verify-signature', pgp, '--trust', at('gpg-public.asc')]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/signed by trusted key [0-9A-F]{40}/);
    expect(runPkg(['package', 'verify-signature', pgp, '--trust', at('pub.pem')]).status).toBe(1);
  });

  it('trusts every OpenPGP key of one trust file, and refuses a signer the trust file says is revoked', () => {
    gpg(['--quick-gen-key', 'Gone <gone@example.org>', 'future-default', 'default', 'never']);
    const gone = gpg(['--with-colons', '--list-keys', 'gone@example.org']).split('\n').find((line) => line.startsWith('fpr:'))!.split(':')[9]!;
    writeFileSync(at('gone-secret.asc'), gpg(['--armor', '--export-secret-keys', 'gone@example.org']));
    const pgp = at('trust-gone.cap');
    expect(runPkg(['package', 'sign', cap, '--openpgp', '--key', at('gone-secret.asc'), '-o', pgp]).status).toBe(0);
    writeFileSync(at('both-public.asc'), gpg(['--armor', '--export', 'signer@example.org', 'gone@example.org']));
    const before = runPkg(['package', 'verify-signature', pgp, '--trust', at('both-public.asc')]);
    expect(before.stdout).toContain(`signed by trusted key ${gone}`);
    expect(before.status).toBe(0);
    // The package still embeds the key as it was; the user has since imported its owner's revocation.
    writeFileSync(at('gone.rev'), readFileSync(join(gnupg, 'openpgp-revocs.d', `${gone}.rev`), 'utf8').replace(/^:-----BEGIN/m, '-----BEGIN'));
    gpg(['--import', at('gone.rev')]);
    writeFileSync(at('both-public.asc'), gpg(['--armor', '--export', 'signer@example.org', 'gone@example.org']));
    const after = runPkg(['package', 'verify-signature', pgp, '--trust', at('both-public.asc')]);
    expect(after.status).toBe(1);
    expect(after.stdout).toContain(`the package is signed by key ${gone}, which ${at('both-public.asc')} says is revoked`);
  });

  it('a package whose own copy of its key carries the revocation is refused as revoked, naming that copy, with or without --trust', () => {
    gpg(['--quick-gen-key', 'Self <self@example.org>', 'future-default', 'default', 'never']);
    const self = gpg(['--with-colons', '--list-keys', 'self@example.org']).split('\n').find((line) => line.startsWith('fpr:'))!.split(':')[9]!;
    writeFileSync(at('self-secret.asc'), gpg(['--armor', '--export-secret-keys', 'self@example.org']));
    writeFileSync(at('self-public.asc'), gpg(['--armor', '--export', 'self@example.org']));
    const directory = unpacked(cap, 'self-revoked');
    expect(runPkg(['package', 'sign', directory, '--openpgp', '--key', at('self-secret.asc')]).status).toBe(0);
    // The signer has since revoked the key, and the package now embeds the revoked copy.
    writeFileSync(at('self.rev'), readFileSync(join(gnupg, 'openpgp-revocs.d', `${self}.rev`), 'utf8').replace(/^:-----BEGIN/m, '-----BEGIN'));
    gpg(['--import', at('self.rev')]);
    writeFileSync(join(directory, 'signature.pub.asc'), gpg(['--armor', '--export', 'self@example.org']));
    const expected = `the package is signed by key ${self}, which the package's own copy of it, signature.pub.asc, says is revoked`;
    for (const trust of [[], ['--trust', at('self-public.asc')]]) {
      const run = runPkg(['package', 'verify-signature', directory, ...trust]);
      expect(run.status).toBe(1);
      expect(run.stdout).toContain(expected);
      expect(run.stdout).not.toContain('does not match');
    }
  });
});

describe('passphrases kept out of the process list', () => {
  const locked = () => at('gpg-locked.asc');
  beforeAll(() => {
    const home = at('gnupg-locked');
    mkdirSync(home, { mode: 0o700 });
    const env = { ...process.env, GNUPGHOME: home };
    const locking = ['--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', 'hunter2'];
    execFileSync('gpg', [...locking, '--quick-gen-key', 'Locked <locked@example.org>', 'future-default', 'default', 'never'], { env, stdio: 'pipe' });
    writeFileSync(locked(), execFileSync('gpg', [...locking, '--armor', '--export-secret-keys', 'locked@example.org'], { env }));
    execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env });
    writeFileSync(at('passphrase.txt'), 'hunter2\n', { mode: 0o600 });
  });

  it('sign takes the passphrase from --passphrase-file or PKG_PASSPHRASE, and says without one that it is needed', () => {
    const sign = (output: string, args: string[], env: NodeJS.ProcessEnv = {}) => runPkg(['package', 'sign', cap, '--openpgp', '--key', locked(), '-o', at(output), ...args], { env });
    expect(sign('pp-file.cap', ['--passphrase-file', at('passphrase.txt')]).status).toBe(0);
    expect(sign('pp-env.cap', [], { PKG_PASSPHRASE: 'hunter2' }).status).toBe(0);
    expect(runPkg(['package', 'verify-signature', at('pp-env.cap')]).status).toBe(0);
    const none = sign('pp-none.cap', []);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/KeyError/);
    const both = sign('pp-both.cap', ['--passphrase', 'hunter2', '--passphrase-file', at('passphrase.txt')]);
    expect(both.stderr).toMatch(/UsageError: give --passphrase or --passphrase-file, not both/);
  });

  it('--help says the flag is visible to other users', () => {
    for (const command of [['package', 'sign'], ['package', 'decrypt'], ['reactor', 'serve']]) {
      const help = runPkg([...command, '--help']).stdout.replace(/\s+/g, ' ');
      expect(help).toMatch(/--passphrase .*visible to other users in the process list/);
      expect(help).toContain('--passphrase-file');
    }
  });
});

describe('OpenPGP signatures', () => {
  it('a key made by gpg signs through our CLI, and gpg verifies the signature', () => {
    const signed = at('pgp-signed.cap');
    const run = runPkg(['package', 'sign', cap, '--openpgp', '--key', at('gpg-secret.asc'), '-o', signed]);
    expect(run.stderr).toBe('');
    const directory = unpacked(signed, 'pgp-signed');
    expect(JSON.parse(readFileSync(join(directory, 'security.json'), 'utf8')).security.digitalSignatures).toEqual({ publicKey: 'signature.pub.asc', signatureFile: 'signature.sig', certificateType: 'OpenPGP' });
    expect(readFileSync(join(directory, 'signature.sig'), 'utf8')).toMatch(/BEGIN PGP SIGNATURE/);
    writeFileSync(at('pgp-payload.bin'), payloadOf(directory));
    const verified = execFileSync('gpg', ['--batch', '--verify', join(directory, 'signature.sig'), at('pgp-payload.bin')], { env: { ...process.env, GNUPGHOME: gnupg }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(verified).toBeDefined();
    expect(runPkg(['package', 'verify-signature', signed]).stdout).toMatch(/PASS signature \(OpenPGP\)/);
    expect(runPkg(['package', 'verify-signature', signed, '--cert', at('gpg-public.asc')]).status).toBe(0);
  });
});

describe('encryption', () => {
  const encrypted = () => at('encrypted.cap');
  beforeAll(() => {
    expect(runPkg(['package', 'encrypt', cap, '--public-key', at('cert.pem'), '-o', encrypted()]).status).toBe(0);
  });

  it('writes the envelope of SPEC.md, which plain node:crypto opens with RSA-OAEP/SHA-256 and AES-256-GCM', () => {
    const entries = readZipEntries(encrypted());
    expect(Object.keys(entries).sort()).toEqual(['metadata.json', 'package.enc', 'signature.json']);
    expect(JSON.parse(entries['metadata.json']!.toString()).name).toBe('example-site');
    const envelope = JSON.parse(entries['signature.json']!.toString()).encryption;
    expect(envelope).toEqual({ algorithm: 'AES-256-GCM', keyManagement: 'RSA-OAEP-SHA256', encryptedDek: expect.any(String), iv: expect.any(String), authTag: expect.any(String) });
    const dek = privateDecrypt({ key: readFileSync(at('key.pem')), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(envelope.encryptedDek, 'base64'));
    expect(dek).toHaveLength(32);
    const decipher = createDecipheriv('aes-256-gcm', dek, Buffer.from(envelope.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(envelope.authTag, 'base64'));
    const inner = Buffer.concat([decipher.update(entries['package.enc']!), decipher.final()]);
    expect(inner.equals(readFileSync(cap))).toBe(true);
  });

  it('decrypts to <name>-decrypted.cap by default, byte for byte the original, that only its owner may read', () => {
    const directory = at('decrypt-here');
    mkdirSync(directory);
    const run = runPkg(['package', 'decrypt', encrypted(), '--private-key', at('key.pem')], { cwd: directory });
    expect(run.status).toBe(0);
    const output = join(directory, 'example-site-decrypted.cap');
    expect(readFileSync(output).equals(readFileSync(cap))).toBe(true);
    expect(statSync(output).mode & 0o777).toBe(0o600);
  });

  it('round-trips with an OpenPGP recipient made by gpg', () => {
    const pgp = at('pgp-encrypted.cap');
    expect(runPkg(['package', 'encrypt', EXAMPLE_SITE, '--openpgp', '--recipient', at('gpg-public.asc'), '-o', pgp]).status).toBe(0);
    expect(JSON.parse(readZipEntries(pgp)['signature.json']!.toString()).encryption.message).toMatch(/BEGIN PGP MESSAGE/);
    const out = at('pgp-decrypted.cap');
    expect(runPkg(['package', 'decrypt', pgp, '--key', at('gpg-secret.asc'), '-o', out]).status).toBe(0);
    expect(runPkg(['package', 'validate', out]).status).toBe(0);
  });

  it('refuses to encrypt a tampered .cap, as the reactor refuses to serve it: IntegrityError or SignatureMismatchError, exit 1, and no output', () => {
    const changed = at('encrypt-tampered.cap');
    const entries = readZipEntries(cap);
    entries['content/about.html'] = Buffer.from('<p>tampered</p>');
    writeZipEntries(changed, entries);
    // Signed, then a file changed and its checksum fixed, so only the signature can tell.
    const signed = at('encrypt-resigned.cap');
    expect(runPkg(['package', 'sign', cap, '--key', at('key.pem'), '-o', signed]).status).toBe(0);
    const signedEntries = readZipEntries(signed);
    signedEntries['content/about.html'] = Buffer.from('<p>tampered</p>');
    const security = JSON.parse(signedEntries['security.json']!.toString());
    security.security.integrityChecks.checksums['content/about.html'] = createHash('sha256').update(signedEntries['content/about.html']).digest('hex');
    signedEntries['security.json'] = Buffer.from(JSON.stringify(security));
    const forged = at('encrypt-forged.cap');
    writeZipEntries(forged, signedEntries);
    for (const [source, error] of [[changed, /IntegrityError.*content\/about\.html/], [forged, /SignatureMismatchError/]] as const) {
      const output = at(`${source}.enc.cap`);
      const run = runPkg(['package', 'encrypt', source, '--public-key', at('pub.pem'), '-o', output]);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(error);
      expect(existsSync(output)).toBe(false);
    }
    expect(runPkg(['package', 'encrypt', signed, '--public-key', at('pub.pem'), '-o', at('encrypt-signed.enc.cap')]).status).toBe(0);
  });

  const tamper = (name: string, change: (entries: Record<string, Buffer>) => void) => {
    const entries = readZipEntries(encrypted());
    change(entries);
    const file = at(name);
    writeZipEntries(file, entries);
    return file;
  };
  const flip = (text: string) => {
    const bytes = Buffer.from(text, 'base64');
    bytes[0]! ^= 1;
    return bytes.toString('base64');
  };
  const envelopeChange = (change: (envelope: Record<string, string>) => void) => (entries: Record<string, Buffer>) => {
    const document = JSON.parse(entries['signature.json']!.toString());
    change(document.encryption);
    entries['signature.json'] = Buffer.from(JSON.stringify(document));
  };

  it.each([
    ['a wrong private key', () => encrypted(), 'other.pem', /DecryptionError/],
    ['a flipped byte in package.enc', () => tamper('flip-enc.cap', (e) => void (e['package.enc']![100]! ^= 1)), 'key.pem', /DecryptionError/],
    ['a flipped byte in iv', () => tamper('flip-iv.cap', envelopeChange((env) => void (env.iv = flip(env.iv!)))), 'key.pem', /DecryptionError/],
    ['a flipped byte in authTag', () => tamper('flip-tag.cap', envelopeChange((env) => void (env.authTag = flip(env.authTag!)))), 'key.pem', /DecryptionError/],
    ['a truncated package.enc', () => tamper('short-enc.cap', (e) => void (e['package.enc'] = e['package.enc']!.subarray(0, 500))), 'key.pem', /DecryptionError/],
    ['an unknown keyManagement', () => tamper('unknown-km.cap', envelopeChange((env) => void (env.keyManagement = 'ROT13'))), 'key.pem', /PackageFormatError: .*keyManagement "ROT13"/],
    ['a truncated envelope', () => (writeFileSync(at('cut.cap'), readFileSync(encrypted()).subarray(0, 300)), at('cut.cap')), 'key.pem', /PackageFormatError/],
    ['a PEM that is not a key', () => encrypted(), 'cert.pem', /KeyError/],
  ])('decrypting with %s is a typed error, exit 1, and no output', (_name, file, key, message) => {
    const out = at(`never-${key}-${Math.random()}.cap`);
    const run = runPkg(['package', 'decrypt', file(), '--private-key', at(key), '-o', out]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(work.path).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('the reactor needs the key, serves with it from a 0600 file in its workdir, and removes that file at shutdown', async () => {
    const refused = await failingServe([encrypted()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/KeyRequiredError: .*--private-key/);
    const wrong = await failingServe([encrypted(), '--private-key', at('other.pem')]);
    expect(wrong.stderr).toMatch(/DecryptionError/);
    const workdir = at('reactor-workdir');
    const running = await startServe([encrypted(), '--private-key', at('key.pem'), '--workdir', workdir]);
    try {
      expect((await fetch(`${running.url}/about`)).status).toBe(200);
      const validity = (await (await fetch(`${running.url}/api/v1/introspect/content-validity`)).json()) as { contentValidity: Array<Record<string, unknown>> };
      expect(validity.contentValidity[0]).toMatchObject({ valid: true, signed: false, encrypted: true });
      expect(validity.contentValidity[0]).not.toHaveProperty('signatureValid');
      const decrypted = readdirSync(join(workdir, 'decrypted'));
      expect(decrypted).toHaveLength(1);
      expect(statSync(join(workdir, 'decrypted', decrypted[0]!)).mode & 0o777).toBe(0o600);
      // What clients write to it is as confidential as what they read: its overlay is the reactor user's alone too.
      const overlays = readdirSync(join(workdir, 'overlays'));
      expect(overlays).toHaveLength(1);
      expect(statSync(join(workdir, 'overlays', overlays[0]!)).mode & 0o777).toBe(0o700);
    } finally {
      expect(await running.stop()).toBe(0);
    }
    expect(readdirSync(join(workdir, 'decrypted'))).toEqual([]);
  });

  it('a package that fails to load once decrypted is named by the encrypted file given, not by its plaintext copy in the workdir', async () => {
    const refused = await failingServe([encrypted(), '--private-key', at('key.pem'), '--trust', at('cert.pem')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: SignatureMismatchError: /);
    expect(refused.stderr).toContain(`SignatureMismatchError: ${encrypted()}: the package is not signed`);
    expect(refused.stderr).not.toMatch(/decrypted/);
  });

  it('validate, info and test say to decrypt first', () => {
    for (const command of ['validate', 'info', 'test']) {
      const run = runPkg(['package', command, encrypted()]);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`KeyRequiredError: .*is encrypted: decrypt it first \\(pkg package decrypt .*then ${command === 'info' ? 'inspect' : command} the plaintext`));
    }
  });

  it('a signed and encrypted package reports signatureValid', async () => {
    const signed = at('signed.cap');
    const both = at('signed-encrypted.cap');
    expect(runPkg(['package', 'encrypt', signed, '--public-key', at('pub.pem'), '-o', both]).status).toBe(0);
    const running = await startServe([both, '--private-key', at('key.pem')]);
    try {
      const validity = (await (await fetch(`${running.url}/api/v1/introspect/content-validity`)).json()) as { contentValidity: Array<Record<string, unknown>> };
      expect(validity.contentValidity[0]).toMatchObject({ valid: true, signed: true, encrypted: true, signatureValid: true });
    } finally {
      await running.stop();
    }
  });
});
