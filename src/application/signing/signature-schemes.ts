import type { SignatureScheme } from '../ports/signature-scheme.js';
import type { KeyWrapping } from '../ports/envelope-crypto.js';

/** Both signature schemes of SPEC.md: RSA-SHA256 (X.509) and OpenPGP. */
export interface SignatureSchemes {
  rsa: SignatureScheme;
  openpgp: SignatureScheme;
}

/** Both key managements of the encryption envelope. */
export interface KeyWrappings {
  rsa: KeyWrapping;
  openpgp: KeyWrapping;
}
