import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AesGcmContentCipher } from '../../src/adapters/crypto/aes-gcm-content-cipher.js';
import { OpenPgpKeyWrapping } from '../../src/adapters/crypto/openpgp-key-wrapping.js';
import { OpenPgpSignatureScheme } from '../../src/adapters/crypto/openpgp-signature-scheme.js';
import { RsaOaepKeyWrapping } from '../../src/adapters/crypto/rsa-oaep-key-wrapping.js';
import { RsaSignatureScheme } from '../../src/adapters/crypto/rsa-signature-scheme.js';
import { DecryptionError, KeyError, OpenPgpUnavailableError } from '../../src/domain/errors.js';
import { temporaryDirectory } from '../support/paths.js';

// Real openssl and gpg make the keys and check our output; gpg key generation takes seconds.
jest.setTimeout(60_000);

let work: ReturnType<typeof temporaryDirectory>;
let gnupgHome: string;
let verifierHome: string;
const at = (name: string) => join(work.path, name);
const file = (name: string) => new Uint8Array(readFileSync(at(name)));

function openssl(...args: string[]): Buffer {
  return execFileSync('openssl', args, { cwd: work.path, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** gpg run in batch mode; `commands`: what an interactive command (--edit-key with --command-fd 0) reads. */
function gpg(home: string, args: string[], passphrase = '', commands?: string): Buffer {
  return execFileSync('gpg', ['--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', passphrase, '--trust-model', 'always', ...args], {
    cwd: work.path,
    env: { ...process.env, GNUPGHOME: home },
    stdio: [commands === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    input: commands,
  });
}

function fingerprint(home: string, who: string): string {
  const line = gpg(home, ['--with-colons', '--list-keys', who])
    .toString()
    .split('\n')
    .find((l) => l.startsWith('fpr:'));
  return line!.split(':')[9]!;
}

const encoder = new TextEncoder();
/** The payload as the use case hands it over: several chunks, one of them empty. */
const PARTS = ['{"name":"demo"}\n', '', '<html>héllo</html>', 'x'.repeat(70_000)];
async function* payload(parts: string[] = PARTS): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield encoder.encode(part);
}
const PAYLOAD_FILE = 'payload.bin';
const TAMPERED = [...PARTS.slice(0, 2), '<html>hello</html>', PARTS[3]!];

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The error a key error carries must name the problem, not quote the key. */
async function keyErrorOf(promise: Promise<unknown>, material: Uint8Array): Promise<KeyError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KeyError);
  const body = Buffer.from(material)
    .toString('latin1')
    .split('\n')
    .filter((line) => line.length > 20 && !line.startsWith('-----'));
  for (const line of body) expect((error as KeyError).message).not.toContain(line);
  return error as KeyError;
}

beforeAll(() => {
  work = temporaryDirectory('cap-crypto-');
  writeFileSync(at(PAYLOAD_FILE), PARTS.join(''));

  openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'pkcs8.pem');
  openssl('genrsa', '-traditional', '-out', 'pkcs1.pem', '2048');
  openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'other.pem');
  openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024', '-out', 'weak.pem');
  openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'ec.pem');
  openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-aes-256-cbc', '-pass', 'pass:hunter2', '-out', 'locked.pem');
  openssl('pkey', '-in', 'pkcs8.pem', '-pubout', '-out', 'pkcs8.pub.pem');
  openssl('pkey', '-in', 'pkcs1.pem', '-pubout', '-out', 'pkcs1.pub.pem');
  openssl('pkey', '-in', 'other.pem', '-pubout', '-out', 'other.pub.pem');
  openssl('pkey', '-in', 'weak.pem', '-pubout', '-out', 'weak.pub.pem');
  openssl('req', '-x509', '-new', '-key', 'pkcs8.pem', '-subj', '/CN=test', '-days', '1', '-out', 'cert.pem');
  openssl('req', '-x509', '-new', '-key', 'other.pem', '-subj', '/CN=other', '-days', '1', '-out', 'other.cert.pem');
  openssl('x509', '-in', 'cert.pem', '-pubkey', '-noout', '-out', 'cert.pub.pem');

  gnupgHome = join(work.path, 'gnupg');
  verifierHome = join(work.path, 'verifier');
  for (const home of [gnupgHome, verifierHome]) {
    mkdirSync(home);
    chmodSync(home, 0o700);
  }
  gpg(gnupgHome, ['--quick-gen-key', 'Test <t@example.org>', 'rsa3072', 'sign', 'never']);
  gpg(gnupgHome, ['--quick-gen-key', 'Enc <e@example.org>', 'rsa3072', 'default', 'never']);
  // gpg 2.2 gives an rsa3072 primary key signing and certifying only: the encryption subkey is added.
  gpg(gnupgHome, ['--quick-add-key', fingerprint(gnupgHome, 'e@example.org'), 'rsa3072', 'encr', 'never']);
  gpg(gnupgHome, ['--quick-gen-key', 'Locked <l@example.org>', 'rsa3072', 'sign', 'never'], 'hunter2');

  writeFileSync(at('sign.sec.asc'), gpg(gnupgHome, ['--armor', '--export-secret-keys', 't@example.org']));
  writeFileSync(at('sign.sec.gpg'), gpg(gnupgHome, ['--export-secret-keys', 't@example.org']));
  writeFileSync(at('sign.pub.asc'), gpg(gnupgHome, ['--armor', '--export', 't@example.org']));
  writeFileSync(at('enc.sec.asc'), gpg(gnupgHome, ['--armor', '--export-secret-keys', 'e@example.org']));
  writeFileSync(at('enc.pub.asc'), gpg(gnupgHome, ['--armor', '--export', 'e@example.org']));
  writeFileSync(at('locked.sec.asc'), gpg(gnupgHome, ['--armor', '--export-secret-keys', 'l@example.org'], 'hunter2'));
});

afterAll(() => {
  for (const home of [gnupgHome, verifierHome]) {
    try {
      execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: home }, stdio: 'ignore' });
    } catch {
      // No agent ever started for this home.
    }
  }
  work.remove();
});

describe('RsaSignatureScheme', () => {
  const scheme = new RsaSignatureScheme();

  it('signs with a PKCS#8 key so that openssl dgst verifies it, and embeds the SPKI public key', async () => {
    const signer = await scheme.prepare({ key: file('pkcs8.pem') });
    expect(scheme.certificateType).toBeUndefined();
    expect(signer.publicKeyFile).toBe('signature.pub.pem');
    expect(Buffer.from(signer.publicKey).toString()).toBe(readFileSync(at('pkcs8.pub.pem'), 'utf8'));
    writeFileSync(at('rsa8.sig'), await signer.sign(payload()));
    writeFileSync(at('rsa8.embedded.pem'), signer.publicKey);
    expect(openssl('dgst', '-sha256', '-verify', 'rsa8.embedded.pem', '-signature', 'rsa8.sig', PAYLOAD_FILE).toString()).toContain('Verified OK');
  });

  it('signs with a PKCS#1 (traditional) key', async () => {
    expect(readFileSync(at('pkcs1.pem'), 'utf8')).toContain('BEGIN RSA PRIVATE KEY');
    const signer = await scheme.prepare({ key: file('pkcs1.pem') });
    writeFileSync(at('rsa1.sig'), await signer.sign(payload()));
    expect(openssl('dgst', '-sha256', '-verify', 'pkcs1.pub.pem', '-signature', 'rsa1.sig', PAYLOAD_FILE).toString()).toContain('Verified OK');
  });

  it('verifies a signature made by openssl dgst -sha256 -sign, with the public key or the certificate', async () => {
    openssl('dgst', '-sha256', '-sign', 'pkcs8.pem', '-out', 'openssl.sig', PAYLOAD_FILE);
    const signature = file('openssl.sig');
    await expect(scheme.verify(payload(), signature, file('pkcs8.pub.pem'))).resolves.toBe(true);
    await expect(scheme.verify(payload(), signature, file('cert.pem'))).resolves.toBe(true);
  });

  it('does not verify a tampered payload, another key, or a signature that is not one', async () => {
    openssl('dgst', '-sha256', '-sign', 'pkcs8.pem', '-out', 'openssl.sig', PAYLOAD_FILE);
    const signature = file('openssl.sig');
    await expect(scheme.verify(payload(TAMPERED), signature, file('pkcs8.pub.pem'))).resolves.toBe(false);
    await expect(scheme.verify(payload(), signature, file('other.pub.pem'))).resolves.toBe(false);
    await expect(scheme.verify(payload(), signature.subarray(1), file('pkcs8.pub.pem'))).resolves.toBe(false);
    await expect(scheme.verify(payload(), new Uint8Array(0), file('pkcs8.pub.pem'))).resolves.toBe(false);
  });

  it('embeds the public key of a matching certificate', async () => {
    const signer = await scheme.prepare({ key: file('pkcs8.pem'), certificate: file('cert.pem') });
    expect(Buffer.from(signer.publicKey).toString()).toBe(readFileSync(at('cert.pub.pem'), 'utf8'));
    const signature = await signer.sign(payload());
    await expect(scheme.verify(payload(), signature, signer.publicKey)).resolves.toBe(true);
  });

  it('refuses a certificate of another key, and a certificate that is not one', async () => {
    await expect(scheme.prepare({ key: file('pkcs8.pem'), certificate: file('other.cert.pem') })).rejects.toThrow(/does not match/);
    await expect(scheme.prepare({ key: file('pkcs8.pem'), certificate: file('other.cert.pem') })).rejects.toBeInstanceOf(KeyError);
    await keyErrorOf(scheme.prepare({ key: file('pkcs8.pem'), certificate: file('pkcs8.pub.pem') }), file('pkcs8.pub.pem'));
  });

  it('refuses a key under 2048 bits, naming its size', async () => {
    const error = await keyErrorOf(scheme.prepare({ key: file('weak.pem') }), file('weak.pem'));
    expect(error.message).toMatch(/1024-bit/);
  });

  it('refuses what is not an RSA private key, without quoting it', async () => {
    for (const name of ['cert.pem', 'pkcs8.pub.pem', 'sign.sec.asc']) {
      const error = await keyErrorOf(scheme.prepare({ key: file(name) }), file(name));
      expect(error.message).toMatch(/not an RSA private key in PEM form/);
    }
    const text = encoder.encode('hello, I am not a key at all');
    await keyErrorOf(scheme.prepare({ key: text }), text);
    const ec = await keyErrorOf(scheme.prepare({ key: file('ec.pem') }), file('ec.pem'));
    expect(ec.message).toMatch(/is not an RSA key \(its type: ec\)/);
  });

  it('unlocks an encrypted PEM key with its passphrase only', async () => {
    await expect(scheme.prepare({ key: file('locked.pem') })).rejects.toThrow(/protected by a passphrase/);
    await expect(scheme.prepare({ key: file('locked.pem'), passphrase: 'wrong' })).rejects.toThrow(/passphrase does not unlock/);
    await expect(scheme.prepare({ key: file('locked.pem') })).rejects.toBeInstanceOf(KeyError);
    const signer = await scheme.prepare({ key: file('locked.pem'), passphrase: 'hunter2' });
    await expect(scheme.verify(payload(), await signer.sign(payload()), signer.publicKey)).resolves.toBe(true);
  });

  it('raises KeyError when the embedded public key is not a key', async () => {
    await expect(scheme.verify(payload(), new Uint8Array(256), encoder.encode('not a key'))).rejects.toBeInstanceOf(KeyError);
  });

  it('gives a certificate, public key or private key of the embedded key its fingerprint, the one openssl computes', async () => {
    const embedded = await scheme.fingerprint((await scheme.prepare({ key: file('pkcs8.pem') })).publicKey, 'embedded');
    const der = execFileSync('openssl', ['pkey', '-pubin', '-in', at('pkcs8.pub.pem'), '-outform', 'DER']);
    expect(embedded).toBe(`SHA256:${createHash('sha256').update(der).digest('hex')}`);
    for (const same of ['cert.pem', 'pkcs8.pub.pem', 'pkcs8.pem']) await expect(scheme.fingerprint(file(same), same)).resolves.toBe(embedded);
    for (const other of ['other.cert.pem', 'other.pub.pem']) await expect(scheme.fingerprint(file(other), other)).resolves.not.toBe(embedded);
    await expect(scheme.fingerprint(encoder.encode('nothing'), 'x')).rejects.toBeInstanceOf(KeyError);
  });
});

describe('OpenPgpSignatureScheme', () => {
  const scheme = new OpenPgpSignatureScheme();

  it('makes an armored detached SHA-256 signature that gpg verifies with the embedded key alone', async () => {
    const signer = await scheme.prepare({ key: file('sign.sec.asc') });
    expect(scheme.certificateType).toBe('OpenPGP');
    expect(signer.publicKeyFile).toBe('signature.pub.asc');
    const signature = await signer.sign(payload());
    expect(Buffer.from(signature).toString()).toMatch(/^-----BEGIN PGP SIGNATURE-----/);
    expect(Buffer.from(signer.publicKey).toString()).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    writeFileSync(at('pgp.sig.asc'), signature);
    writeFileSync(at('pgp.embedded.asc'), signer.publicKey);
    // A keyring that has never seen the signer: only the embedded key can make this pass.
    gpg(verifierHome, ['--import', 'pgp.embedded.asc']);
    const status = gpg(verifierHome, ['--status-fd', '1', '--verify', 'pgp.sig.asc', PAYLOAD_FILE]).toString();
    expect(status).toMatch(/\[GNUPG:\] GOODSIG /);
    // VALIDSIG <fpr> <date> <ts> <expire> <version> <reserved> <pubkey-algo> <hash-algo>: 8 is SHA-256.
    const validsig = status.split('\n').find((line) => line.startsWith('[GNUPG:] VALIDSIG '))!.split(' ');
    expect(validsig[2]).toBe(fingerprint(gnupgHome, 't@example.org'));
    expect(validsig[9]).toBe('8');
    await expect(scheme.verify(payload(), signature, signer.publicKey)).resolves.toBe(true);
  });

  it('signs with a binary gpg secret key export', async () => {
    const signer = await scheme.prepare({ key: file('sign.sec.gpg') });
    const signature = await signer.sign(payload());
    await expect(scheme.verify(payload(), signature, file('sign.pub.asc'))).resolves.toBe(true);
  });

  it('verifies a detached signature made by gpg', async () => {
    gpg(gnupgHome, ['--armor', '--digest-algo', 'SHA256', '--local-user', 't@example.org', '--output', 'gpg.sig.asc', '--detach-sign', PAYLOAD_FILE]);
    await expect(scheme.verify(payload(), file('gpg.sig.asc'), file('sign.pub.asc'))).resolves.toBe(true);
    await expect(scheme.verify(payload(TAMPERED), file('gpg.sig.asc'), file('sign.pub.asc'))).resolves.toBe(false);
  });

  it('refuses a gpg signature made with SHA-1, and names that hash as the reason', async () => {
    gpg(gnupgHome, ['--armor', '--digest-algo', 'SHA1', '--local-user', 't@example.org', '--output', 'sha1.sig.asc', '--detach-sign', PAYLOAD_FILE]);
    await expect(scheme.verify(payload(), file('sha1.sig.asc'), file('sign.pub.asc'))).resolves.toBe(false);
    await expect(scheme.weakHash(file('sha1.sig.asc'))).resolves.toBe('SHA1');
    gpg(gnupgHome, ['--armor', '--digest-algo', 'SHA256', '--local-user', 't@example.org', '--output', 'sha256.sig.asc', '--detach-sign', PAYLOAD_FILE]);
    await expect(scheme.weakHash(file('sha256.sig.asc'))).resolves.toBeUndefined();
    await expect(scheme.weakHash(encoder.encode('not a signature'))).resolves.toBeUndefined();
  });

  it('does not verify a tampered payload, another key, or a signature that is not one', async () => {
    const signer = await scheme.prepare({ key: file('sign.sec.asc') });
    const signature = await signer.sign(payload());
    await expect(scheme.verify(payload(TAMPERED), signature, signer.publicKey)).resolves.toBe(false);
    await expect(scheme.verify(payload(), signature, file('enc.pub.asc'))).resolves.toBe(false);
    await expect(scheme.verify(payload(), encoder.encode('not a signature'), signer.publicKey)).resolves.toBe(false);
    await expect(scheme.verify(payload(), signature, encoder.encode('not a key'))).rejects.toBeInstanceOf(KeyError);
  });

  it('does not verify a signature file holding more signatures than any signer writes, whatever they sign', async () => {
    const signer = await scheme.prepare({ key: file('sign.sec.asc') });
    writeFileSync(at('one.sig.asc'), await signer.sign(payload()));
    gpg(gnupgHome, ['--dearmor', '--output', 'one.sig', 'one.sig.asc']);
    const binary = readFileSync(at('one.sig'));
    await expect(scheme.verify(payload(), binary, signer.publicKey)).resolves.toBe(true);
    await expect(scheme.verify(payload(), Buffer.concat(Array.from({ length: 17 }, () => binary)), signer.publicKey)).resolves.toBe(false);
  });

  it('needs the passphrase of a protected key', async () => {
    await expect(scheme.prepare({ key: file('locked.sec.asc') })).rejects.toThrow(/protected by a passphrase/);
    await expect(scheme.prepare({ key: file('locked.sec.asc'), passphrase: 'wrong' })).rejects.toThrow(/passphrase does not unlock/);
    await expect(scheme.prepare({ key: file('locked.sec.asc') })).rejects.toBeInstanceOf(KeyError);
    const signer = await scheme.prepare({ key: file('locked.sec.asc'), passphrase: 'hunter2' });
    await expect(scheme.verify(payload(), await signer.sign(payload()), signer.publicKey)).resolves.toBe(true);
  });

  it('refuses a signing key file of several secret keys rather than signing with the first alone', async () => {
    writeFileSync(at('two.sec.asc'), gpg(gnupgHome, ['--armor', '--export-secret-keys', 't@example.org', 'e@example.org']));
    writeFileSync(at('two.sec.gpg'), gpg(gnupgHome, ['--export-secret-keys', 't@example.org', 'e@example.org']));
    for (const name of ['two.sec.asc', 'two.sec.gpg']) expect((await keyErrorOf(scheme.prepare({ key: file(name) }), file(name))).message).toMatch(/holds 2 secret keys/);
  });

  it('refuses a public key or something else as the signing key', async () => {
    await keyErrorOf(scheme.prepare({ key: file('sign.pub.asc') }), file('sign.pub.asc'));
    await keyErrorOf(scheme.prepare({ key: file('pkcs8.pem') }), file('pkcs8.pem'));
  });

  it('fingerprints keys by their primary key, as gpg does', async () => {
    const embedded = await scheme.fingerprint((await scheme.prepare({ key: file('sign.sec.gpg') })).publicKey, 'embedded');
    expect(embedded).toMatch(/^[0-9A-F]{40}$/);
    await expect(scheme.fingerprint(file('sign.pub.asc'), 'pub')).resolves.toBe(embedded);
    await expect(scheme.fingerprint(file('sign.sec.asc'), 'sec')).resolves.toBe(embedded);
    await expect(scheme.fingerprint(file('enc.pub.asc'), 'enc')).resolves.not.toBe(embedded);
    await expect(scheme.fingerprint(file('cert.pem'), 'cert')).rejects.toBeInstanceOf(KeyError);
  });

  it('fingerprints every key of a trust file: one export of several keys, or armored blocks put one after another', async () => {
    const expected = [await scheme.fingerprint(file('sign.pub.asc'), 'sign'), await scheme.fingerprint(file('enc.pub.asc'), 'enc')];
    writeFileSync(at('both.asc'), gpg(gnupgHome, ['--armor', '--export', 't@example.org', 'e@example.org']));
    writeFileSync(at('both.gpg'), gpg(gnupgHome, ['--export', 't@example.org', 'e@example.org']));
    writeFileSync(at('concatenated.asc'), Buffer.concat([readFileSync(at('enc.pub.asc')), readFileSync(at('sign.pub.asc'))]));
    for (const name of ['both.asc', 'both.gpg', 'concatenated.asc']) expect((await scheme.fingerprints(file(name), name)).sort()).toEqual(expected.sort());
    await expect(scheme.fingerprints(file('cert.pem'), 'cert')).rejects.toBeInstanceOf(KeyError);
  });

  it('does not verify by a key the trusted copy says is revoked, though the embedded copy leaves the revocation out', async () => {
    gpg(gnupgHome, ['--quick-gen-key', 'Revoked <r@example.org>', 'rsa3072', 'sign', 'never']);
    const revokedFingerprint = fingerprint(gnupgHome, 'r@example.org');
    const signer = await scheme.prepare({ key: gpg(gnupgHome, ['--armor', '--export-secret-keys', 'r@example.org']) });
    const signature = await signer.sign(payload());
    const before = gpg(gnupgHome, ['--armor', '--export', 'r@example.org']);
    // gpg writes a revocation certificate for each key it makes, its armor line guarded by a colon.
    const certificate = readFileSync(join(gnupgHome, 'openpgp-revocs.d', `${revokedFingerprint}.rev`), 'utf8').replace(/^:-----BEGIN/m, '-----BEGIN');
    writeFileSync(at('revocation.asc'), certificate);
    gpg(gnupgHome, ['--import', 'revocation.asc']);
    const after = gpg(gnupgHome, ['--armor', '--export', 'r@example.org']);
    await expect(scheme.verify(payload(), signature, signer.publicKey)).resolves.toBe(true);
    await expect(scheme.verify(payload(), signature, signer.publicKey, before)).resolves.toBe(true);
    await expect(scheme.revokedBy(signature, signer.publicKey, before)).resolves.toBeUndefined();
    await expect(scheme.verify(payload(), signature, signer.publicKey, after)).resolves.toBe(false);
    await expect(scheme.revokedBy(signature, signer.publicKey, after)).resolves.toBe('trusted');
    // The package's own copy may carry the revocation: it is the one that says so, not an unrevoked trusted copy.
    await expect(scheme.verify(payload(), signature, after)).resolves.toBe(false);
    await expect(scheme.revokedBy(signature, after)).resolves.toBe('embedded');
    await expect(scheme.revokedBy(signature, after, before)).resolves.toBe('embedded');
    await expect(scheme.revokedBy(signature, after, after)).resolves.toBe('trusted');
    // A trusted file holding other keys too: the copy with this fingerprint is the one that counts.
    await expect(scheme.verify(payload(), signature, signer.publicKey, Buffer.concat([file('sign.pub.asc'), after]))).resolves.toBe(false);
  });

  it('does not verify by a signing subkey the trusted copy says is revoked, and says the signer is revoked', async () => {
    gpg(gnupgHome, ['--quick-gen-key', 'Subkey <s@example.org>', 'ed25519', 'cert', 'never']);
    const primary = fingerprint(gnupgHome, 's@example.org');
    gpg(gnupgHome, ['--quick-add-key', primary, 'ed25519', 'sign', 'never']);
    const signer = await scheme.prepare({ key: gpg(gnupgHome, ['--armor', '--export-secret-keys', 's@example.org']) });
    const signature = await signer.sign(payload());
    const before = gpg(gnupgHome, ['--armor', '--export', 's@example.org']);
    // gpg's own way: select the subkey, revoke it (no reason given), save.
    gpg(gnupgHome, ['--command-fd', '0', '--edit-key', primary], '', 'key 1\nrevkey\ny\n0\n\ny\nsave\n');
    const after = gpg(gnupgHome, ['--armor', '--export', 's@example.org']);
    await expect(scheme.verify(payload(), signature, signer.publicKey, before)).resolves.toBe(true);
    await expect(scheme.revokedBy(signature, signer.publicKey, before)).resolves.toBeUndefined();
    await expect(scheme.verify(payload(), signature, signer.publicKey, after)).resolves.toBe(false);
    await expect(scheme.revokedBy(signature, signer.publicKey, after)).resolves.toBe('trusted');
    // A signature by another key's subkey is not this revocation's.
    const other = await (await scheme.prepare({ key: file('sign.sec.asc') })).sign(payload());
    await expect(scheme.revokedBy(other, signer.publicKey, after)).resolves.toBeUndefined();
    await expect(scheme.revokedBy(encoder.encode('not a signature'), signer.publicKey, after)).resolves.toBeUndefined();
    // The package's own copy may carry the subkey's revocation: it is the one that says so, whatever the user's copy says.
    await expect(scheme.verify(payload(), signature, after)).resolves.toBe(false);
    await expect(scheme.revokedBy(signature, after)).resolves.toBe('embedded');
    await expect(scheme.revokedBy(signature, after, before)).resolves.toBe('embedded');
  });

  it('raises OpenPgpUnavailableError with install guidance when openpgp cannot be loaded, and retries later', async () => {
    let attempts = 0;
    const flaky = new OpenPgpSignatureScheme(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error("Cannot find package 'openpgp'");
      return import('openpgp');
    });
    const error = await flaky.prepare({ key: file('sign.sec.asc') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenPgpUnavailableError);
    expect((error as Error).message).toContain('npm install openpgp');
    await expect(flaky.prepare({ key: file('sign.sec.asc') })).resolves.toBeDefined();
    const missing = new OpenPgpKeyWrapping(() => Promise.reject(new Error('missing')));
    await expect(missing.wrap(new Uint8Array(32), file('enc.pub.asc'))).rejects.toBeInstanceOf(OpenPgpUnavailableError);
  });
});

describe('RsaSignatureScheme trust files', () => {
  it('fingerprints each key of a bundle of certificates and public keys', async () => {
    const scheme = new RsaSignatureScheme();
    const bundle = Buffer.concat([readFileSync(at('cert.pem')), readFileSync(at('other.pub.pem'))]);
    const expected = [await scheme.fingerprint(file('cert.pem'), 'cert'), await scheme.fingerprint(file('other.pub.pem'), 'other')];
    expect(await scheme.fingerprints(bundle, 'bundle')).toEqual(expected);
    expect(await scheme.fingerprints(file('pkcs8.pub.pem'), 'one')).toEqual([await scheme.fingerprint(file('pkcs8.pub.pem'), 'one')]);
    await expect(scheme.fingerprints(encoder.encode('not a key'), 'nothing')).rejects.toBeInstanceOf(KeyError);
  });
});

describe('RsaOaepKeyWrapping', () => {
  const wrapping = new RsaOaepKeyWrapping();
  const dek = new Uint8Array(randomBytes(32));

  it('round-trips a DEK to a public key or a certificate', async () => {
    expect(wrapping.keyManagement).toBe('RSA-OAEP-SHA256');
    for (const recipient of ['pkcs8.pub.pem', 'cert.pem']) {
      const wrapped = await wrapping.wrap(dek, file(recipient));
      expect(Buffer.from(wrapped.encryptedDek, 'base64')).toHaveLength(256);
      await expect(wrapping.unwrap(wrapped, file('pkcs8.pem'))).resolves.toEqual(dek);
    }
  });

  it('wraps so that openssl pkeyutl decrypts with OAEP SHA-256', async () => {
    const { encryptedDek } = await wrapping.wrap(dek, file('cert.pem'));
    writeFileSync(at('dek.oaep'), Buffer.from(encryptedDek, 'base64'));
    const plain = openssl(
      'pkeyutl', '-decrypt', '-inkey', 'pkcs8.pem', '-in', 'dek.oaep',
      '-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha256', '-pkeyopt', 'rsa_mgf1_md:sha256',
    );
    expect(new Uint8Array(plain)).toEqual(dek);
  });

  it('unwraps a DEK wrapped by openssl pkeyutl', async () => {
    writeFileSync(at('dek.bin'), dek);
    openssl(
      'pkeyutl', '-encrypt', '-pubin', '-inkey', 'pkcs1.pub.pem', '-in', 'dek.bin', '-out', 'dek.openssl',
      '-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha256', '-pkeyopt', 'rsa_mgf1_md:sha256',
    );
    const encryptedDek = readFileSync(at('dek.openssl')).toString('base64');
    await expect(wrapping.unwrap({ encryptedDek }, file('pkcs1.pem'))).resolves.toEqual(dek);
  });

  it('raises DecryptionError for the wrong private key or an altered DEK', async () => {
    const wrapped = await wrapping.wrap(dek, file('pkcs8.pub.pem'));
    await expect(wrapping.unwrap(wrapped, file('other.pem'))).rejects.toBeInstanceOf(DecryptionError);
    const altered = Buffer.from(wrapped.encryptedDek, 'base64');
    altered[10]! ^= 1;
    await expect(wrapping.unwrap({ encryptedDek: altered.toString('base64') }, file('pkcs8.pem'))).rejects.toBeInstanceOf(DecryptionError);
    await expect(wrapping.unwrap({ message: 'x' }, file('pkcs8.pem'))).rejects.toBeInstanceOf(DecryptionError);
  });

  it('raises KeyError for what is not a key, and for a weak recipient', async () => {
    const wrapped = await wrapping.wrap(dek, file('pkcs8.pub.pem'));
    await keyErrorOf(wrapping.unwrap(wrapped, file('cert.pem')), file('cert.pem'));
    const text = encoder.encode('no key here, only a sentence long enough to check');
    await keyErrorOf(wrapping.wrap(dek, text), text);
    await expect(wrapping.wrap(dek, file('weak.pub.pem'))).rejects.toThrow(/1024-bit/);
  });

  it('refuses a file of several public keys, of whom only the first could decrypt; a certificate chain is its first certificate\'s', async () => {
    const keys = new Uint8Array(Buffer.concat([file('pkcs8.pub.pem'), file('other.pub.pem')]));
    expect((await keyErrorOf(wrapping.wrap(dek, keys), keys)).message).toBe('the recipient key file holds 2 public keys, and a package is encrypted for one recipient: give only theirs');
    const chain = await wrapping.wrap(dek, new Uint8Array(Buffer.concat([file('cert.pem'), file('other.cert.pem')])));
    await expect(wrapping.unwrap(chain, file('pkcs8.pem'))).resolves.toEqual(dek);
  });

  it('refuses a private key as the recipient, though its public part would do: the file is mixed up', async () => {
    for (const name of ['pkcs8.pem', 'pkcs1.pem', 'locked.pem']) expect((await keyErrorOf(wrapping.wrap(dek, file(name)), file(name))).message).toMatch(/recipient key is a private key/);
  });
});

describe('OpenPgpKeyWrapping', () => {
  const wrapping = new OpenPgpKeyWrapping();
  const dek = new Uint8Array(randomBytes(32));

  it('round-trips a DEK as an armored message', async () => {
    expect(wrapping.keyManagement).toBe('OpenPGP');
    const wrapped = await wrapping.wrap(dek, file('enc.pub.asc'));
    expect(wrapped.message).toMatch(/^-----BEGIN PGP MESSAGE-----/);
    await expect(wrapping.unwrap(wrapped, file('enc.sec.asc'))).resolves.toEqual(dek);
  });

  it('refuses a secret key as the recipient, armored or binary, though its public part would do: the file is mixed up', async () => {
    writeFileSync(at('enc.sec.gpg'), gpg(gnupgHome, ['--export-secret-keys', 'e@example.org']));
    for (const name of ['enc.sec.asc', 'enc.sec.gpg']) expect((await keyErrorOf(wrapping.wrap(dek, file(name)), file(name))).message).toMatch(/recipient key is an OpenPGP secret key/);
  });

  it('unwraps with a secret key file of several keys whichever of them the package is for: one export, binary, or blocks put one after another', async () => {
    const wrapped = await wrapping.wrap(dek, file('enc.pub.asc'));
    writeFileSync(at('keyring.sec.asc'), gpg(gnupgHome, ['--armor', '--export-secret-keys', 't@example.org', 'e@example.org']));
    writeFileSync(at('keyring.sec.gpg'), gpg(gnupgHome, ['--export-secret-keys', 't@example.org', 'e@example.org']));
    writeFileSync(at('keyring.concatenated.asc'), Buffer.concat([file('sign.sec.asc'), file('enc.sec.asc')]));
    for (const name of ['keyring.sec.asc', 'keyring.sec.gpg', 'keyring.concatenated.asc']) await expect(wrapping.unwrap(wrapped, file(name))).resolves.toEqual(dek);
    await keyErrorOf(wrapping.unwrap(wrapped, file('enc.pub.asc')), file('enc.pub.asc'));
  });

  it('refuses a recipient file of several keys, armored or binary, rather than encrypting for the first alone', async () => {
    writeFileSync(at('recipients.asc'), gpg(gnupgHome, ['--armor', '--export', 'e@example.org', 't@example.org']));
    writeFileSync(at('recipients.gpg'), gpg(gnupgHome, ['--export', 'e@example.org', 't@example.org']));
    for (const name of ['recipients.asc', 'recipients.gpg']) expect((await keyErrorOf(wrapping.wrap(dek, file(name)), file(name))).message).toMatch(/holds 2 OpenPGP keys/);
  });

  it('wraps so that gpg --decrypt gives the DEK bytes', async () => {
    const { message } = await wrapping.wrap(dek, file('enc.pub.asc'));
    writeFileSync(at('dek.pgp.asc'), message);
    expect(new Uint8Array(gpg(gnupgHome, ['--decrypt', 'dek.pgp.asc']))).toEqual(dek);
  });

  it('unwraps a message made by gpg --encrypt with the exported secret key', async () => {
    writeFileSync(at('dek.bin'), dek);
    gpg(gnupgHome, ['--armor', '--recipient', 'e@example.org', '--output', 'dek.gpg.asc', '--encrypt', 'dek.bin']);
    await expect(wrapping.unwrap({ message: readFileSync(at('dek.gpg.asc'), 'utf8') }, file('enc.sec.asc'))).resolves.toEqual(dek);
  });

  it('raises DecryptionError for the wrong key or a message that is not one', async () => {
    const wrapped = await wrapping.wrap(dek, file('enc.pub.asc'));
    await expect(wrapping.unwrap(wrapped, file('sign.sec.asc'))).rejects.toBeInstanceOf(DecryptionError);
    await expect(wrapping.unwrap({ message: 'garbage' }, file('enc.sec.asc'))).rejects.toBeInstanceOf(DecryptionError);
    await expect(wrapping.unwrap({ encryptedDek: 'AAAA' }, file('enc.sec.asc'))).rejects.toBeInstanceOf(DecryptionError);
  });

  it('refuses a wrapped key that inflates past what any key takes, before inflating it whole: 64 MiB of zeros compressed by gpg', async () => {
    writeFileSync(at('zeros.bin'), Buffer.alloc(64 * 1024 * 1024));
    gpg(gnupgHome, ['--armor', '--recipient', 'e@example.org', '--compress-algo', 'zlib', '-z', '9', '--output', 'bomb.gpg.asc', '--encrypt', 'zeros.bin']);
    const refused = wrapping.unwrap({ message: readFileSync(at('bomb.gpg.asc'), 'utf8') }, file('enc.sec.asc'));
    await expect(refused).rejects.toBeInstanceOf(DecryptionError);
    // Inflated whole, it failed later as a key of 67,108,864 bytes.
    await expect(refused).rejects.toThrow(/does not decrypt the data encryption key/);
  });

  it('raises KeyError for a recipient that cannot encrypt, or a secret key that is not one', async () => {
    await expect(wrapping.wrap(dek, file('sign.pub.asc'))).rejects.toBeInstanceOf(KeyError);
    await keyErrorOf(wrapping.wrap(dek, file('pkcs8.pub.pem')), file('pkcs8.pub.pem'));
    const wrapped = await wrapping.wrap(dek, file('enc.pub.asc'));
    await keyErrorOf(wrapping.unwrap(wrapped, file('enc.pub.asc')), file('enc.pub.asc'));
  });
});

describe('AesGcmContentCipher', () => {
  const cipher = new AesGcmContentCipher();
  const key = cipher.randomBytes(32);
  const iv = cipher.randomBytes(12);
  const plaintext = [randomBytes(10), randomBytes(0), randomBytes(65_537), randomBytes(3)];
  async function* chunks(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
    for (const part of parts) yield part;
  }
  async function sealed(): Promise<{ parts: Buffer[]; tag: Uint8Array }> {
    const { ciphertext, authTag } = cipher.encrypt(chunks(plaintext), key, iv);
    const parts: Buffer[] = [];
    for await (const part of ciphertext) parts.push(Buffer.from(part));
    return { parts, tag: authTag() };
  }
  /** Reads the plaintext to the end, counting what came out before it failed. */
  async function drain(stream: AsyncIterable<Uint8Array>): Promise<{ chunks: number; error?: unknown }> {
    let count = 0;
    try {
      for await (const _ of stream) count += 1;
      return { chunks: count };
    } catch (error) {
      return { chunks: count, error };
    }
  }

  it('round-trips a stream of several chunks', async () => {
    const { parts, tag } = await sealed();
    expect(parts.length).toBeGreaterThan(1);
    expect(tag).toHaveLength(16);
    expect(Buffer.concat(parts)).toHaveLength(Buffer.concat(plaintext).length);
    expect(await collect(cipher.decrypt(chunks(parts), key, iv, tag))).toEqual(Buffer.concat(plaintext));
  });

  it('writes plain AES-256-GCM that node:crypto decrypts on its own', async () => {
    const { parts, tag } = await sealed();
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    expect(Buffer.concat([decipher.update(Buffer.concat(parts)), decipher.final()])).toEqual(Buffer.concat(plaintext));
  });

  it('has no tag before the ciphertext has been read to the end', () => {
    const { authTag } = cipher.encrypt(chunks(plaintext), key, iv);
    expect(() => authTag()).toThrow(/read to the end/);
  });

  it('raises DecryptionError at the end of the stream for a flipped ciphertext byte', async () => {
    const { parts, tag } = await sealed();
    const altered = parts.map((part) => Buffer.from(part));
    altered[0]![3]! ^= 0x01;
    const result = await drain(cipher.decrypt(chunks(altered), key, iv, tag));
    expect(result.chunks).toBeGreaterThan(0);
    expect(result.error).toBeInstanceOf(DecryptionError);
    expect((result.error as Error).message).toMatch(/does not authenticate/);
  });

  it('raises DecryptionError for a flipped IV byte, tag byte, or a wrong key', async () => {
    const { parts, tag } = await sealed();
    const badIv = Buffer.from(iv);
    badIv[0]! ^= 0x80;
    const badTag = Buffer.from(tag);
    badTag[15]! ^= 0x01;
    const cases = [
      cipher.decrypt(chunks(parts), key, badIv, tag),
      cipher.decrypt(chunks(parts), key, iv, badTag),
      cipher.decrypt(chunks(parts), cipher.randomBytes(32), iv, tag),
    ];
    for (const stream of cases) expect((await drain(stream)).error).toBeInstanceOf(DecryptionError);
  });

  it('refuses a key, IV or tag of the wrong length', async () => {
    const { parts, tag } = await sealed();
    const cases = [
      cipher.decrypt(chunks(parts), key.subarray(0, 16), iv, tag),
      cipher.decrypt(chunks(parts), key, cipher.randomBytes(16), tag),
      // GCM itself would accept a shortened tag, and with it much easier forgeries.
      cipher.decrypt(chunks(parts), key, iv, tag.subarray(0, 4)),
    ];
    for (const stream of cases) expect((await drain(stream)).error).toBeInstanceOf(DecryptionError);
    expect(() => cipher.encrypt(chunks(plaintext), key.subarray(0, 16), iv)).toThrow(RangeError);
  });
});
