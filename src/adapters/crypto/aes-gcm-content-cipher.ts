import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ContentCipher } from '../../application/ports/envelope-crypto.js';
import { DecryptionError } from '../../domain/errors.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM over a stream of chunks, so a package never has to be held whole in memory. */
export class AesGcmContentCipher implements ContentCipher {
  randomBytes(length: number): Uint8Array {
    return new Uint8Array(randomBytes(length));
  }

  encrypt(plaintext: AsyncIterable<Uint8Array>, key: Uint8Array, iv: Uint8Array): { ciphertext: AsyncIterable<Uint8Array>; authTag(): Uint8Array } {
    // A wrong size here is a bug in the caller, not a property of a package.
    if (key.length !== KEY_BYTES) throw new RangeError(`AES-256-GCM needs a ${KEY_BYTES}-byte key, not ${key.length} bytes`);
    if (iv.length !== IV_BYTES) throw new RangeError(`AES-256-GCM needs a ${IV_BYTES}-byte IV, not ${iv.length} bytes`);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    let tag: Uint8Array | undefined;
    async function* ciphertext(): AsyncGenerator<Uint8Array> {
      for await (const chunk of plaintext) {
        const out = cipher.update(chunk);
        if (out.length > 0) yield new Uint8Array(out.buffer, out.byteOffset, out.length);
      }
      const last = cipher.final();
      tag = new Uint8Array(cipher.getAuthTag());
      if (last.length > 0) yield new Uint8Array(last.buffer, last.byteOffset, last.length);
    }
    return {
      ciphertext: ciphertext(),
      authTag() {
        if (tag === undefined) throw new Error('the authentication tag exists only once the ciphertext has been read to the end');
        return tag;
      },
    };
  }

  decrypt(ciphertext: AsyncIterable<Uint8Array>, key: Uint8Array, iv: Uint8Array, authTag: Uint8Array): AsyncIterable<Uint8Array> {
    return (async function* () {
      if (key.length !== KEY_BYTES) throw new DecryptionError(`the data encryption key is ${key.length} bytes, not the ${KEY_BYTES} bytes of an AES-256 key`);
      if (iv.length !== IV_BYTES) throw new DecryptionError(`the IV is ${iv.length} bytes, not ${IV_BYTES}`);
      // GCM would accept a tag cut short, and every byte cut halves the work of a forgery.
      if (authTag.length !== TAG_BYTES) throw new DecryptionError(`the authentication tag is ${authTag.length} bytes, not ${TAG_BYTES}`);
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(authTag);
      for await (const chunk of ciphertext) {
        const out = decipher.update(chunk);
        if (out.length > 0) yield new Uint8Array(out.buffer, out.byteOffset, out.length);
      }
      let last: Buffer;
      try {
        last = decipher.final();
      } catch (error) {
        throw new DecryptionError('the package does not authenticate: wrong key, or the ciphertext, IV or tag was altered', { cause: error });
      }
      if (last.length > 0) yield new Uint8Array(last.buffer, last.byteOffset, last.length);
    })();
  }
}
