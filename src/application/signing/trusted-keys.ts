import { KeyError } from '../../domain/errors.js';
import type { SignatureSchemes } from './signature-schemes.js';
import type { TrustFile } from '../ports/signature-scheme.js';


/**
 * The signers a user pins. An embedded public key proves only that the package is
 * intact: anyone can re-sign a package with a key of their own. A signature means
 * "who" only when its key is one of these.
 */
export class TrustedKeys {
  private constructor(private readonly files: ReadonlyMap<string, TrustFile>) {}

  /** Fingerprints of every key of every file; a file that holds no key of either scheme is a KeyError naming it. */
  static async load(schemes: SignatureSchemes, files: readonly TrustFile[]): Promise<TrustedKeys> {
    const byFingerprint = new Map<string, TrustFile>();
    for (const file of files) for (const fingerprint of await fingerprintsOf(schemes, file)) byFingerprint.set(fingerprint, file);
    return new TrustedKeys(byFingerprint);
  }

  has(fingerprint: string): boolean {
    return this.files.has(fingerprint);
  }

  /** The file the key with this fingerprint was trusted from: its copy of the key is the user's. */
  fileOf(fingerprint: string): TrustFile | undefined {
    return this.files.get(fingerprint);
  }
}

/** A PEM private key (`PRIVATE KEY`, `RSA PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`) or an armored OpenPGP secret key. */
const PRIVATE_KEY_ARMOR = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;

async function fingerprintsOf(schemes: SignatureSchemes, file: TrustFile): Promise<string[]> {
  // Its public part would be trusted, but a file of secrets where public keys belong is mixed up,
  // and one handed around for others to trust gives away the key it should keep.
  if (PRIVATE_KEY_ARMOR.test(new TextDecoder('latin1').decode(file.bytes))) {
    throw new KeyError(`trusted key ${file.name} holds a private key: trust the signer's public key or certificate (\`openssl pkey -in KEY -pubout\`, \`gpg --armor --export\`)`);
  }
  // PEM first: it needs no library load, and most trust files are PEM.
  for (const scheme of [schemes.rsa, schemes.openpgp]) {
    try {
      return await scheme.fingerprints(file.bytes, file.name);
    } catch (error) {
      if (!(error instanceof KeyError)) throw error;
    }
  }
  throw new KeyError(`trusted key ${file.name} holds neither a PEM public key or certificate nor an OpenPGP public key`);
}
