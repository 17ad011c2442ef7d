import { describeIntegrity, isIntact } from '../../domain/integrity/security.js';
import { readPackage } from '../package/package-reader.js';
import type { PackageOpener } from '../ports/package-source.js';
import type { SignatureCheck, SignatureCheckOptions, SignatureVerdict } from '../signing/signature-check.js';

export interface SignatureReport extends SignatureVerdict {
  source: string;
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

  async execute(location: string, options: SignatureCheckOptions = {}): Promise<SignatureReport> {
    const source = await this.opener.open(location);
    try {
      const model = await readPackage(source, { generate: 'serving' });
      const verdict = await this.signatures.check(source, model.security, options);
      if (verdict.valid && verdict.integrity && !isIntact(verdict.integrity)) return { source: location, ...verdict, valid: false, reason: describeIntegrity(verdict.integrity).join('; ') };
      return { source: location, ...verdict };
    } finally {
      await source.close();
    }
  }
}
