import { SignatureMismatchError } from '../../domain/errors.js';
import type { Security } from '../../domain/integrity/security.js';
import { assertIntact } from '../integrity/digest-entries.js';
import type { PackageSource } from '../ports/package-source.js';
import type { PackageVerifier } from '../ports/package-verifier.js';
import type { SignatureCheck } from './signature-check.js';
import type { TrustedKeys } from './trusted-keys.js';

/** What checks a package before it is used or handed on. */
export interface PackageChecks {
  signatures: SignatureCheck;
  verifier: PackageVerifier;
}

/**
 * Checksums (IntegrityError naming the files), and the signature when one is declared or
 * trusted keys demand one (SignatureMismatchError): the reactor before it serves a package,
 * encrypt before it seals one.
 */
export async function assertVerified(source: PackageSource, security: Security | undefined, checks: PackageChecks, trusted?: TrustedKeys): Promise<void> {
  if (security?.digitalSignatures || trusted) {
    // The signed payload is every covered file, so one read checks the checksums and the signature.
    const verdict = await checks.signatures.check(source, security, trusted ? { trusted } : {});
    if (verdict.integrity) assertIntact(source.location, verdict.integrity);
    if (!verdict.valid) throw new SignatureMismatchError(`${source.location}: ${verdict.reason}`);
  } else if (security) assertIntact(source.location, await checks.verifier.verify(source, security));
}
