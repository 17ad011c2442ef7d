import { describe, expect, it } from '@jest/globals';
import { OpenPgpSignatureScheme } from '../../../src/adapters/crypto/openpgp-signature-scheme.js';
import { OpenPgpKeyWrapping } from '../../../src/adapters/crypto/openpgp-key-wrapping.js';
import { RsaOaepKeyWrapping } from '../../../src/adapters/crypto/rsa-oaep-key-wrapping.js';
import { MemoryArchiveWriter } from '../../fakes/memory-archive-writer.js';
import { PORT, SERVICE, USE_CASE } from '../../../src/composition/service-ids.js';
import { KeyRequiredError, OpenPgpUnavailableError, SignatureMismatchError, UsageError } from '../../../src/domain/errors.js';
import { MemoryOpener } from '../../fakes/memory-package-opener.js';
import { demoPackage } from '../../support/demo-package.js';
import { fakeKey, fakeScheme } from '../../fakes/fake-signature-scheme.js';
import { productionContainer, swap } from '../../support/production-container.js';

/** The openpgp module as a machine without it would load it. */
const missing = () => Promise.reject(new Error("Cannot find package 'openpgp'"));

describe('signing and encryption use cases', () => {
  it('OpenPGP commands fail with OpenPgpUnavailableError and install guidance when openpgp cannot be loaded', async () => {
    const opener = new MemoryOpener().add('pkg', demoPackage());
    const archives = new MemoryArchiveWriter();
    const container = productionContainer(
      swap(PORT.PackageOpener, opener),
      swap(PORT.ArchiveWriter, archives),
      swap(PORT.SignatureSchemes, { rsa: fakeScheme(), openpgp: new OpenPgpSignatureScheme(missing) }),
      swap(PORT.KeyWrappings, { rsa: new RsaOaepKeyWrapping(), openpgp: new OpenPgpKeyWrapping(missing) }),
    );
    const sign = container.get(USE_CASE.SignPackage).execute({ location: 'pkg', key: { key: new TextEncoder().encode('armored key') }, openpgp: true });
    await expect(sign).rejects.toThrow(OpenPgpUnavailableError);
    await expect(sign).rejects.toThrow(/npm install openpgp/);
    const encrypt = container.get(USE_CASE.EncryptPackage).execute({ location: 'pkg', recipient: new TextEncoder().encode('key'), openpgp: true, output: '/out/x.cap', force: false });
    await expect(encrypt).rejects.toThrow(OpenPgpUnavailableError);
    expect(archives.archives.size).toBe(0);
  });

  it('signs a package through the one pack pipeline: the public key is covered, signature.sig is not', async () => {
    const archives = new MemoryArchiveWriter();
    const container = productionContainer(
      swap(PORT.PackageOpener, new MemoryOpener().add('/in/pkg.cap', { ...demoPackage(), 'signature.pub.asc': 'stale', 'security.json': '{}' })),
      swap(PORT.ArchiveWriter, archives),
      swap(PORT.SignatureSchemes, { rsa: fakeScheme(), openpgp: fakeScheme('OpenPGP') }),
    );
    const outcome = await container.get(USE_CASE.SignPackage).execute({ location: '/in/pkg.cap', key: { key: fakeKey('k') }, openpgp: false });
    expect(outcome).toMatchObject({ scheme: 'RSA-SHA256', publicKeyFile: 'signature.pub.pem' });
    const written = archives.archives.get('/in/pkg.cap')!.entries;
    expect(written.map((entry) => entry.path)).not.toContain('signature.pub.asc');
    const security = JSON.parse(new TextDecoder().decode(written.find((entry) => entry.path === 'security.json')!.bytes)).security;
    expect(Object.keys(security.integrityChecks.checksums)).toContain('signature.pub.pem');
    expect(Object.keys(security.integrityChecks.checksums)).not.toContain('signature.sig');
    expect(security.digitalSignatures).toEqual({ publicKey: 'signature.pub.pem', signatureFile: 'signature.sig' });
  });

  it('refuses to sign an encrypted package', async () => {
    const container = productionContainer(
      swap(PORT.PackageOpener, new MemoryOpener().add('enc', { 'metadata.json': demoPackage()['metadata.json']!, 'signature.json': '{}', 'package.enc': 'x' })),
      swap(PORT.SignatureSchemes, { rsa: fakeScheme(), openpgp: fakeScheme('OpenPGP') }),
    );
    await expect(container.get(USE_CASE.SignPackage).execute({ location: 'enc', key: { key: fakeKey('k') }, openpgp: false })).rejects.toThrow(UsageError);
  });

  it('asks for an encrypted package to be decrypted before its signature is verified: its envelope says nothing of whether it is signed', async () => {
    const container = productionContainer(
      swap(PORT.PackageOpener, new MemoryOpener().add('enc', { 'metadata.json': demoPackage()['metadata.json']!, 'signature.json': '{}', 'package.enc': 'x' })),
      swap(PORT.SignatureSchemes, { rsa: fakeScheme(), openpgp: fakeScheme('OpenPGP') }),
    );
    const verify = container.get(USE_CASE.VerifySignature).execute('enc');
    await expect(verify).rejects.toThrow(KeyRequiredError);
    await expect(verify).rejects.toThrow(/decrypt it first .* then verify the signature of the plaintext \.cap/);
  });

  it('hashes every signed file even when the scheme stops reading: a signature it cannot parse is a SignatureMismatchError, never files reported missing', async () => {
    const archives = new MemoryArchiveWriter();
    const opener = new MemoryOpener().add('/in/pkg.cap', demoPackage());
    const schemes = { rsa: fakeScheme(), openpgp: fakeScheme('OpenPGP') };
    const container = productionContainer(swap(PORT.PackageOpener, opener), swap(PORT.ArchiveWriter, archives), swap(PORT.SignatureSchemes, schemes));
    await container.get(USE_CASE.SignPackage).execute({ location: '/in/pkg.cap', key: { key: fakeKey('k') }, openpgp: true, output: '/out/signed.cap' });
    opener.add('/out/signed.cap', Object.fromEntries(archives.archives.get('/out/signed.cap')!.entries.map((entry) => [entry.path, entry.bytes])));
    // As the OpenPGP scheme does with a signature file that does not parse: false, the payload unread.
    schemes.openpgp.verify = async () => false;
    const report = await container.get(USE_CASE.VerifySignature).execute('/out/signed.cap');
    expect(report).toMatchObject({ valid: false, integrity: { mismatched: [], missing: [], uncovered: [] } });
    await expect(container.get(SERVICE.LoadPackage).execute('/out/signed.cap', { cacheControl: 'no-cache' })).rejects.toThrow(SignatureMismatchError);
  });

  it('trusts each key of a trust file, and refuses a signer the trust file says is revoked', async () => {
    const archives = new MemoryArchiveWriter();
    const opener = new MemoryOpener().add('/in/pkg.cap', demoPackage());
    const container = productionContainer(
      swap(PORT.PackageOpener, opener),
      swap(PORT.ArchiveWriter, archives),
      swap(PORT.SignatureSchemes, { rsa: fakeScheme(), openpgp: fakeScheme('OpenPGP') }),
    );
    await container.get(USE_CASE.SignPackage).execute({ location: '/in/pkg.cap', key: { key: fakeKey('k') }, openpgp: true, output: '/out/signed.cap' });
    const signed = Object.fromEntries(archives.archives.get('/out/signed.cap')!.entries.map((entry) => [entry.path, entry.bytes]));
    opener.add('/out/signed.cap', signed);
    const verify = (trust: string) => container.get(USE_CASE.VerifySignature).execute('/out/signed.cap', { trust: [{ name: 'keys.txt', bytes: new TextEncoder().encode(trust) }] });
    await expect(verify('fake-key:other\nfake-key:k')).resolves.toMatchObject({ valid: true, trusted: true });
    await expect(verify('fake-key:other')).resolves.toMatchObject({ valid: false, trusted: false });
    const revoked = await verify('fake-key:k\nrevoked:fake-key:k');
    expect(revoked).toMatchObject({ valid: false, trusted: false });
    expect(revoked.reason).toMatch(/signed by key FAKE:\w+, which keys.txt says is revoked/);
  });

  it('says a signature made with a hash too weak to trust is that, not a mismatch with the content', async () => {
    const archives = new MemoryArchiveWriter();
    const opener = new MemoryOpener().add('/in/pkg.cap', demoPackage());
    const container = productionContainer(swap(PORT.PackageOpener, opener), swap(PORT.ArchiveWriter, archives), swap(PORT.SignatureSchemes, { rsa: fakeScheme(), openpgp: fakeScheme('OpenPGP') }));
    await container.get(USE_CASE.SignPackage).execute({ location: '/in/pkg.cap', key: { key: fakeKey('k') }, openpgp: true, output: '/out/signed.cap' });
    const signed = Object.fromEntries(archives.archives.get('/out/signed.cap')!.entries.map((entry) => [entry.path, entry.bytes]));
    opener.add('/out/weak.cap', { ...signed, 'signature.sig': new TextEncoder().encode('weak:signature') });
    const report = await container.get(USE_CASE.VerifySignature).execute('/out/weak.cap');
    expect(report).toMatchObject({ valid: false, integrity: { mismatched: [], missing: [] } });
    expect(report.reason).toMatch(/signature\.sig is made with SHA1, a hash too weak to trust: sign again with SHA-256/);
  });
});
