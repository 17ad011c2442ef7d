import { constants, privateDecrypt, publicEncrypt } from 'node:crypto';
import type { KeyWrapping } from '../../application/ports/envelope-crypto.js';
import { DecryptionError, KeyError } from '../../domain/errors.js';
import { readRsaPrivateKey, readRsaPublicKey } from './rsa-signature-scheme.js';

const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' } as const;

/** `PRIVATE KEY`, `RSA PRIVATE KEY`, `ENCRYPTED PRIVATE KEY` and the like: PEM labels of a private key. */
const PRIVATE_KEY_PEM = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/;

/** `PUBLIC KEY` (SPKI) and `RSA PUBLIC KEY` (PKCS#1) PEM blocks. */
const PUBLIC_KEY_PEM = /-----BEGIN (?:RSA )?PUBLIC KEY-----/g;

/**
 * The RSA variant of the envelope: the DEK encrypted with RSA-OAEP, SHA-256 for both the
 * label hash and MGF1, as `openssl pkeyutl -pkeyopt rsa_oaep_md:sha256` expects.
 */
export class RsaOaepKeyWrapping implements KeyWrapping {
  readonly keyManagement = 'RSA-OAEP-SHA256' as const;

  async wrap(dek: Uint8Array, recipient: Uint8Array): Promise<{ encryptedDek: string }> {
    // Its public part would do, but a private key where the recipient's public key belongs is a mixed-up file, as a public key given to sign with is.
    if (PRIVATE_KEY_PEM.test(Buffer.from(recipient).toString('latin1'))) {
      throw new KeyError("the recipient key is a private key: give the recipient's public key or certificate (`openssl pkey -in KEY -pubout` writes the public key)");
    }
    // Several keys are several recipients, of whom only the first could decrypt: as with an
    // OpenPGP file of several keys, refused. A certificate chain is one recipient's: its first
    // certificate is theirs, as openssl takes it.
    const keys = Buffer.from(recipient).toString('latin1').match(PUBLIC_KEY_PEM)?.length ?? 0;
    if (keys > 1) throw new KeyError(`the recipient key file holds ${keys} public keys, and a package is encrypted for one recipient: give only theirs`);
    const key = readRsaPublicKey(recipient, 'the recipient key');
    return { encryptedDek: publicEncrypt({ key, ...OAEP }, dek).toString('base64') };
  }

  async unwrap(wrapped: { encryptedDek?: string; message?: string }, key: Uint8Array, passphrase?: string): Promise<Uint8Array> {
    if (typeof wrapped.encryptedDek !== 'string') throw new DecryptionError('the envelope has no encryptedDek to unwrap with an RSA key');
    // Accepting a smaller key here would not weaken anything already encrypted to it.
    const privateKey = readRsaPrivateKey(key, 'the decryption key', passphrase, 0);
    try {
      return new Uint8Array(privateDecrypt({ key: privateKey, ...OAEP }, Buffer.from(wrapped.encryptedDek, 'base64')));
    } catch (error) {
      throw new DecryptionError('the private key does not unwrap the data encryption key: it is not the key the package was encrypted for', {
        cause: error,
      });
    }
  }
}
