/**
 * What wraps the data encryption key (DEK) of an encrypted package: RSA-OAEP with
 * SHA-256 (`encryptedDek`), or an armored OpenPGP message (`message`).
 */
export interface KeyWrapping {
  readonly keyManagement: 'RSA-OAEP-SHA256' | 'OpenPGP';
  /** Wraps the DEK for a recipient (a PEM public key or certificate, or an OpenPGP public key). KeyError for a bad key. */
  wrap(dek: Uint8Array, recipient: Uint8Array): Promise<{ encryptedDek: string } | { message: string }>;
  /** Unwraps it with the private key; DecryptionError for a wrong key, KeyError for something that is not a key. */
  unwrap(wrapped: { encryptedDek?: string; message?: string }, key: Uint8Array, passphrase?: string): Promise<Uint8Array>;
}

/** AES-256-GCM over whole archives, streamed, and the randomness for keys and IVs. */
export interface ContentCipher {
  randomBytes(length: number): Uint8Array;
  /** The ciphertext, as it is read; `authTag()` gives the 16-byte GCM tag once it has been read to the end. */
  encrypt(plaintext: AsyncIterable<Uint8Array>, key: Uint8Array, iv: Uint8Array): { ciphertext: AsyncIterable<Uint8Array>; authTag(): Uint8Array };
  /**
   * The plaintext, as it is read. Its last step checks the tag and throws DecryptionError
   * when it does not authenticate: nothing read from it may be used before it ends.
   */
  decrypt(ciphertext: AsyncIterable<Uint8Array>, key: Uint8Array, iv: Uint8Array, authTag: Uint8Array): AsyncIterable<Uint8Array>;
}

/** The keys a user gave to open encrypted packages: an RSA private key PEM, an OpenPGP secret key, or both. */
export interface DecryptionKeys {
  privateKey?: Uint8Array;
  openpgpKey?: Uint8Array;
  passphrase?: string;
}
