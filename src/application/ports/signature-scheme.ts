/** Key material as the user gave it: file bytes, PEM or armored or binary. */
export interface SigningKey {
  key: Uint8Array;
  /** X.509 certificate whose public key must match `key` (RSA only). */
  certificate?: Uint8Array;
  /** For a protected OpenPGP secret key. */
  passphrase?: string;
}

export interface PreparedSigner {
  /** The public key to embed: `signature.pub.pem` or `signature.pub.asc`, and its bytes. */
  publicKeyFile: string;
  publicKey: Uint8Array;
  /** Signs the payload: the raw bytes of every covered file, concatenated in sorted path order. */
  sign(payload: AsyncIterable<Uint8Array>): Promise<Uint8Array>;
}

/**
 * One signature scheme of SPEC.md: RSA-SHA256 with X.509/PEM keys, or OpenPGP with a
 * detached armored SHA-256 signature. Bad keys throw KeyError (not a key, under 2048
 * bits, a certificate that does not match); a scheme whose library cannot be loaded
 * throws OpenPgpUnavailableError.
 */
export interface SignatureScheme {
  /** Absent in security.json for RSA; `OpenPGP` for OpenPGP. */
  readonly certificateType: 'OpenPGP' | undefined;
  prepare(key: SigningKey): Promise<PreparedSigner>;
  /**
   * Whether `signature` is a valid signature of the payload by `publicKey` (the embedded
   * key file). `trusted` is the user's own file holding the same key: where a scheme's
   * keys carry revocations and expiry, the user's copy of them is the one that counts.
   */
  verify(payload: AsyncIterable<Uint8Array>, signature: Uint8Array, publicKey: Uint8Array, trusted?: Uint8Array): Promise<boolean>;
  /**
   * Which copy of the key says the key that made `signature` is revoked (the key itself, or
   * the part of it that signed, an OpenPGP signing subkey): `trusted`, the user's own copy
   * from a trust file, else `publicKey`, the package's embedded one; undefined when neither does.
   */
  revokedBy(signature: Uint8Array, publicKey: Uint8Array, trusted?: Uint8Array): Promise<'trusted' | 'embedded' | undefined>;
  /**
   * The hash `signature` was made with, when it is one this scheme refuses as too weak
   * (an OpenPGP signature made with SHA-1, say), so that a refused one does not read as
   * tampering; undefined otherwise.
   */
  weakHash(signature: Uint8Array): Promise<string | undefined>;
  /**
   * The fingerprint of the public key in a key file (a public or private key, or a
   * certificate): what a user compares and pins. KeyError when the file holds no key of
   * this scheme; `role` names the file in that error.
   */
  fingerprint(key: Uint8Array, role: string): Promise<string>;
  /** The fingerprint of every key in a trust file, which may hold several. KeyError when it holds none of this scheme. */
  fingerprints(file: Uint8Array, role: string): Promise<string[]>;
}

/** A key file the user trusts (`--trust`, `--cert`, `PKG_TRUST`): a PEM public key or certificate, or an OpenPGP public key. */
export interface TrustFile {
  name: string;
  bytes: Uint8Array;
}
