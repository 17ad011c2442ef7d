import type { IntegrityReport, Security } from '../../domain/integrity/security.js';
import type { PackageSource } from './package-source.js';

/** Re-hashes a package against its security.json; implementations may work off the event loop. */
export interface PackageVerifier {
  verify(source: PackageSource, security: Security): Promise<IntegrityReport>;
}
