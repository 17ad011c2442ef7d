import { constants, privateDecrypt, publicEncrypt } from 'node:crypto';
import type { KeyWrapping } from '../../application/ports/envelope-crypto.js';
import { DecryptionError } from '../../domain/errors.js';
import { readRsaPrivateKey, readRsaPublicKey } from './rsa-signature-scheme.js';

const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' } as const;

/**
 * The RSA variant of the envelope: the DEK encrypted with RSA-OAEP, SHA-256 for both the
 * label hash and MGF1, as `openssl pkeyutl -pkeyopt rsa_oaep_md:sha256` expects.
 */
export class RsaOaepKeyWrapping implements KeyWrapping {
  readonly keyManagement = 'RSA-OAEP-SHA256' as const;

  async wrap(dek: Uint8Array, recipient: Uint8Array): Promise<{ encryptedDek: string }> {
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
