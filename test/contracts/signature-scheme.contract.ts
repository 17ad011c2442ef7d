import { describe, expect, it } from '@jest/globals';
import type { SignatureScheme, SigningKey } from '../../src/application/ports/signature-scheme.js';
import { KeyError } from '../../src/domain/errors.js';
import { bytes, chunks, eachSubject, failing, type Subject } from './subject.js';

export interface SignatureSchemeSubject {
  scheme: SignatureScheme;
  /** A signing key the scheme takes, and another one. */
  key: SigningKey;
  otherKey: SigningKey;
  /** Bytes that hold no key of this scheme. */
  notAKey: Uint8Array;
}

/** The promises of the SignatureScheme port (src/application/ports/signature-scheme.ts). */
export function describeSignatureSchemeContract(name: string, makeSubject: () => Promise<Subject<SignatureSchemeSubject>> | Subject<SignatureSchemeSubject>): void {
  describe(`${name} keeps the SignatureScheme contract`, () => {
    const subject = eachSubject(makeSubject);
    const payload = () => chunks('metadata.json bytes', 'content/index.html bytes');

    it('prepares a signer with the public key file of its scheme', async () => {
      const signer = await subject().scheme.prepare(subject().key);
      expect(signer.publicKeyFile).toBe(subject().scheme.certificateType === 'OpenPGP' ? 'signature.pub.asc' : 'signature.pub.pem');
      expect(signer.publicKey.length).toBeGreaterThan(0);
    });

    it('verifies its signature of the payload by the embedded public key, however the payload is cut', async () => {
      const signer = await subject().scheme.prepare(subject().key);
      const signature = await signer.sign(payload());
      expect(await subject().scheme.verify(chunks('metadata.json ', 'bytescontent/index.html bytes'), signature, signer.publicKey)).toBe(true);
    });

    it('does not verify another payload, another key\'s signature, or an altered signature', async () => {
      const signer = await subject().scheme.prepare(subject().key);
      const other = await subject().scheme.prepare(subject().otherKey);
      const signature = await signer.sign(payload());
      expect(await subject().scheme.verify(chunks('metadata.json bytes', 'content/index.html byteS'), signature, signer.publicKey)).toBe(false);
      expect(await subject().scheme.verify(payload(), signature, other.publicKey)).toBe(false);
      expect(await subject().scheme.verify(payload(), await other.sign(payload()), signer.publicKey)).toBe(false);
      const altered = Uint8Array.from(signature);
      altered[Math.floor(altered.length / 2)]! ^= 0x01;
      expect(await subject().scheme.verify(payload(), altered, signer.publicKey)).toBe(false);
    });

    it('fails with the payload\'s own error when the payload cannot be read to its end (a corrupt entry is that error, not a bad signature)', async () => {
      const signer = await subject().scheme.prepare(subject().key);
      const signature = await signer.sign(payload());
      await expect(signer.sign(failing('metadata.json bytes'))).rejects.toThrow('the stream broke');
      await expect(subject().scheme.verify(failing('metadata.json bytes'), signature, signer.publicKey)).rejects.toThrow('the stream broke');
    });

    it('gives one fingerprint for a key and its public key, and another for another key', async () => {
      const signer = await subject().scheme.prepare(subject().key);
      const fingerprint = await subject().scheme.fingerprint(signer.publicKey, 'the public key');
      expect(fingerprint).toEqual(expect.any(String));
      expect(await subject().scheme.fingerprint(subject().key.key, 'the key')).toBe(fingerprint);
      expect(await subject().scheme.fingerprint(subject().otherKey.key, 'the other key')).not.toBe(fingerprint);
    });

    it('trusts a file of one public key as that key, not revoked, and verifies by it as by the embedded key', async () => {
      const signer = await subject().scheme.prepare(subject().key);
      const signature = await signer.sign(payload());
      expect(await subject().scheme.fingerprints(signer.publicKey, 'the trust file')).toEqual([await subject().scheme.fingerprint(signer.publicKey, 'the public key')]);
      expect(await subject().scheme.revokedBy(signature, signer.publicKey, signer.publicKey)).toBeUndefined();
      expect(await subject().scheme.revokedBy(signature, signer.publicKey)).toBeUndefined();
      expect(await subject().scheme.verify(payload(), signature, signer.publicKey, signer.publicKey)).toBe(true);
      await expect(subject().scheme.fingerprints(subject().notAKey, 'the trust file')).rejects.toThrow(KeyError);
    });

    it('refuses what is not a key with KeyError: to sign with, to verify by, to fingerprint', async () => {
      const signer = await subject().scheme.prepare(subject().key);
      const signature = await signer.sign(payload());
      await expect(subject().scheme.prepare({ key: subject().notAKey })).rejects.toThrow(KeyError);
      await expect(subject().scheme.verify(payload(), signature, subject().notAKey)).rejects.toThrow(KeyError);
      await expect(subject().scheme.fingerprint(subject().notAKey, 'the key file')).rejects.toThrow(KeyError);
      await expect(subject().scheme.fingerprint(bytes(''), 'the key file')).rejects.toThrow(KeyError);
    });
  });
}
