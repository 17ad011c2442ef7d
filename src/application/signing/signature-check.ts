import { compareChecksums, signedPayloadOrder, type IntegrityReport, type Security } from '../../domain/integrity/security.js';
import { ConfigParseError, KeyError } from '../../domain/errors.js';
import { coveredPaths } from '../integrity/digest-entries.js';
import { readBounded } from '../package/package-reader.js';
import type { Hasher } from '../ports/hasher.js';
import { tap } from '../shared/tap.js';
import type { PackageSource } from '../ports/package-source.js';
import type { SignatureSchemes } from './signature-schemes.js';
import { concatenated } from './signed-payload.js';
import { TrustedKeys } from './trusted-keys.js';
import type { TrustFile } from '../ports/signature-scheme.js';

/**
 * What an embedded key, certificate or signature may weigh. Each is read whole: a 2 MB
 * package declaring a 900 MB key (within the archive's ratio limit) took validate 2.8 GB.
 * Real ones are kilobytes; an OpenPGP key heavy with certifications, a few megabytes.
 */
export const MAX_KEY_FILE_BYTES = 16 * 1024 * 1024;
const KEY_FILE = 'a key or signature file';

export interface SignatureVerdict {
  signed: boolean;
  scheme?: 'RSA-SHA256' | 'OpenPGP';
  valid: boolean;
  /** Why it is not valid. */
  reason?: string;
  /** The fingerprint of the key that made a matching signature. */
  signer?: string;
  /** Whether trusted keys were given and the signer is one of them. */
  trusted?: boolean;
  /** The checksums, compared from the same read as the signature: a signature says nothing about files security.json no longer lists. */
  integrity?: IntegrityReport;
}

export interface SignatureCheckOptions {
  /** The signers the user pins: without them a signature proves integrity only. */
  trusted?: TrustedKeys;
  /** Check as OpenPGP whatever security.json says. */
  openpgp?: boolean;
}

/**
 * Verifies a package's declared signature over the payload SPEC.md defines (every file
 * security.json covers, in sorted path order). CLI verify, validate, info, test and the
 * reactor at load all come here.
 */
export class SignatureCheck {
  constructor(
    private readonly schemes: SignatureSchemes,
    private readonly hasher: Hasher,
  ) {}

  async check(source: PackageSource, security: Security | undefined, options: SignatureCheckOptions = {}): Promise<SignatureVerdict> {
    const declared = security?.digitalSignatures;
    if (!security || !declared) {
      const reason = `the package is not signed (security.json declares no digitalSignatures)${options.trusted ? ', and only packages signed by a trusted key are accepted' : ''}`;
      return { signed: false, valid: false, reason };
    }
    const openpgp = options.openpgp === true || declared.certificateType === 'OpenPGP';
    const scheme = openpgp ? this.schemes.openpgp : this.schemes.rsa;
    const verdict = (valid: boolean, reason?: string): SignatureVerdict => ({ signed: true, scheme: openpgp ? 'OpenPGP' : 'RSA-SHA256', valid, ...(reason ? { reason } : {}) });
    for (const file of [declared.publicKey, declared.signatureFile]) if (!source.has(file)) return verdict(false, `${file}, named in security.json, is missing`);
    const paths = signedPayloadOrder(security.checksums);
    const uncovered = coveredPaths(source).filter((path) => !Object.hasOwn(security.checksums, path));
    const missing = paths.filter((path) => !source.has(path));
    if (missing.length > 0) {
      return { ...verdict(false, `signed files are missing: ${missing.join(', ')}`), integrity: { mismatched: [], missing, uncovered } };
    }
    let publicKey: Uint8Array;
    let signature: Uint8Array;
    try {
      publicKey = await readBounded(source, declared.publicKey, MAX_KEY_FILE_BYTES, KEY_FILE);
      signature = await readBounded(source, declared.signatureFile, MAX_KEY_FILE_BYTES, KEY_FILE);
    } catch (error) {
      if (error instanceof ConfigParseError) return verdict(false, `${error.file} ${error.detail}`);
      throw error;
    }
    const digests = new Map<string, string>();
    const hashed = (path: string) => {
      const hash = this.hasher.createSha256();
      return tap(source.stream(path), (chunk) => hash.update(chunk), () => digests.set(path, hash.digest()));
    };
    let matches: boolean;
    let signer: string;
    let pinned: TrustFile | undefined;
    let revokedBy: 'trusted' | 'embedded' | undefined;
    let weakHash: string | undefined;
    try {
      signer = await scheme.fingerprint(publicKey, declared.publicKey);
      pinned = options.trusted?.fileOf(signer);
      matches = await scheme.verify(concatenated(paths, hashed), signature, publicKey, pinned?.bytes);
      // A revoked signer fails the check too; saying so keeps it from reading as tampering.
      if (!matches) revokedBy = await scheme.revokedBy(signature, publicKey, pinned?.bytes);
      // So does one made with a hash too weak to trust.
      if (!matches && !revokedBy) weakHash = await scheme.weakHash(signature);
    } catch (error) {
      // The package's own key file, altered or not a key of its scheme: a signature that proves nothing, as a garbage signature file is.
      if (error instanceof KeyError) return verdict(false, `the embedded key ${declared.publicKey} cannot check the signature: ${error.message}`);
      throw error;
    }
    // A scheme may stop reading early (an OpenPGP signature file that does not parse proves nothing), but the checksums still need every file: unread, they would all be "missing".
    for (const path of paths) if (!digests.has(path)) for await (const _chunk of hashed(path));
    const integrity = { ...compareChecksums(security.checksums, digests), uncovered };
    if (revokedBy) {
      const copy = revokedBy === 'trusted' ? pinned?.name : `the package's own copy of it, ${declared.publicKey},`;
      return { ...verdict(false, `the package is signed by key ${signer}, which ${copy} says is revoked`), signer, trusted: false, integrity };
    }
    if (weakHash) return { ...verdict(false, `the OpenPGP signature ${declared.signatureFile} is made with ${weakHash}, a hash too weak to trust: sign again with SHA-256 (gpg --digest-algo SHA256, or pkg package sign --openpgp)`), integrity };
    if (!matches) {
      return { ...verdict(false, `the ${openpgp ? 'OpenPGP' : 'RSA-SHA256'} signature does not match the package content and its embedded key ${declared.publicKey}`), integrity };
    }
    if (!options.trusted) return { ...verdict(true), signer, integrity };
    if (!options.trusted.has(signer)) return { ...verdict(false, `the package is signed by key ${signer}, a different key than the trusted ones given`), signer, trusted: false, integrity };
    return { ...verdict(true), signer, trusted: true, integrity };
  }

  /** The trusted keys in these files, fingerprinted by whichever scheme reads each. */
  trust(files: readonly TrustFile[]): Promise<TrustedKeys> {
    return TrustedKeys.load(this.schemes, files);
  }
}
