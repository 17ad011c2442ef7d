import { describeIntegrity, isIntact } from '../../domain/integrity/security.js';
import { readPackage } from '../package/package-reader.js';
import type { PackageOpener } from '../ports/package-source.js';
import { refuseEncrypted } from '../signing/envelope-opener.js';
import type { SignatureCheck, SignatureVerdict } from '../signing/signature-check.js';
import type { TrustFile } from '../ports/signature-scheme.js';

export interface SignatureReport extends SignatureVerdict {
  source: string;
}

export interface VerifyOptions {
  /** Check as OpenPGP whatever security.json says. */
  openpgp?: boolean;
  /** The keys the package must be signed with; none means the signature proves integrity only. */
  trust?: readonly TrustFile[];
}

/**
 * `pkg package verify-signature`: the declared signature over the package as it is, and
 * its checksums, compared from the same read.
 */
export class VerifySignature {
  constructor(
    private readonly opener: PackageOpener,
    private readonly signatures: SignatureCheck,
  ) {}

  async execute(location: string, options: VerifyOptions = {}): Promise<SignatureReport> {
    const trusted = options.trust?.length ? await this.signatures.trust(options.trust) : undefined;
    const source = await this.opener.open(location);
    try {
      // The envelope's files are not the signed package's: "not signed" would be a false verdict on what it holds.
      refuseEncrypted(source, 'verify the signature of');
      const model = await readPackage(source, { generate: 'serving' });
      const verdict = await this.signatures.check(source, model.security, { ...(options.openpgp ? { openpgp: true } : {}), ...(trusted ? { trusted } : {}) });
      if (verdict.valid && verdict.integrity && !isIntact(verdict.integrity)) return { source: location, ...verdict, valid: false, reason: describeIntegrity(verdict.integrity).join('; ') };
      return { source: location, ...verdict };
    } finally {
      await source.close();
    }
  }
}
