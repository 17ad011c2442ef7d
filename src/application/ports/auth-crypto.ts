/** The keyed hashing and randomness authentication needs; every output is base64url. */
export interface AuthCrypto {
  /** HMAC-SHA256 of the value under the key. */
  hmac(key: string, value: string): string;
  /**
   * SHA-256 of the key and the value: a lookup key that does not hold the value, cheaper
   * than an HMAC per request. Not a proof of anything: use hmac() for that.
   */
  fingerprint(key: string, value: string): string;
  /** `value.signature` (HMAC-SHA256), the form cookie-signature writes. */
  sign(value: string, key: string): string;
  /** The value of a signed string, or undefined when the signature does not match. */
  unsign(signed: string, key: string): string | undefined;
  /** SHA-256 of the value: the PKCE S256 challenge of a verifier. */
  sha256(value: string): string;
  /** `bytes` random bytes. */
  random(bytes: number): string;
  /** Comparison in time independent of where the strings differ. */
  equal(a: string, b: string): boolean;
}
