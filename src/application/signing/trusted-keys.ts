import { KeyError } from '../../domain/errors.js';
import type { SignatureSchemes } from './signature-schemes.js';
import type { TrustFile } from '../ports/signature-scheme.js';


/**
 * The signers a user pins. An embedded public key proves only that the package is
 * intact: anyone can re-sign a package with a key of their own. A signature means
 * "who" only when its key is one of these.
 */
export class TrustedKeys {
  private constructor(private readonly fingerprints: ReadonlySet<string>) {}

  /** Fingerprints of every file; a file that holds no key of either scheme is a KeyError naming it. */
  static async load(schemes: SignatureSchemes, files: readonly TrustFile[]): Promise<TrustedKeys> {
    const fingerprints = new Set<string>();
    for (const file of files) fingerprints.add(await fingerprintOf(schemes, file));
    return new TrustedKeys(fingerprints);
  }

  has(fingerprint: string): boolean {
    return this.fingerprints.has(fingerprint);
  }
}

async function fingerprintOf(schemes: SignatureSchemes, file: TrustFile): Promise<string> {
  // PEM first: it needs no library load, and most trust files are PEM.
  for (const scheme of [schemes.rsa, schemes.openpgp]) {
    try {
      return await scheme.fingerprint(file.bytes, file.name);
    } catch (error) {
      if (!(error instanceof KeyError)) throw error;
    }
  }
  throw new KeyError(`trusted key ${file.name} holds neither a PEM public key or certificate nor an OpenPGP public key`);
}
