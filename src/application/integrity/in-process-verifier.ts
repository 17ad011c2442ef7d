import type { IntegrityReport, Security } from '../../domain/integrity/security.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageSource } from '../ports/package-source.js';
import type { PackageVerifier } from '../ports/package-verifier.js';
import { checkIntegrity } from './digest-entries.js';

export class InProcessVerifier implements PackageVerifier {
  constructor(private readonly hasher: Hasher) {}

  verify(source: PackageSource, security: Security): Promise<IntegrityReport> {
    return checkIntegrity(source, this.hasher, security);
  }
}
