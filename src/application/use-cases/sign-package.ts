import { UsageError } from '../../domain/errors.js';
import { isEncryptedPackage } from '../../domain/integrity/envelope.js';
import { securityDocument, type DigitalSignatures } from '../../domain/integrity/security.js';
import { SECURITY_FILE, SIGNATURE_FILE, isSigningArtifact, sortPaths } from '../../domain/package/package-paths.js';
import type { PackFile, PackPipeline } from '../package/pack-pipeline.js';
import { toJsonBytes } from '../package/package-reader.js';
import type { FileWriter } from '../ports/file-writer.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';
import type { SigningKey } from '../ports/signature-scheme.js';
import { tap } from '../shared/tap.js';
import type { SignatureSchemes } from '../signing/signature-schemes.js';
import { concatenated } from '../signing/signed-payload.js';
import { once } from '../shared/bytes.js';
import { splitFilePath } from '../shared/file-path.js';

export interface SignRequest {
  location: string;
  key: SigningKey;
  openpgp: boolean;
  /** For a `.cap`: write the signed package here instead of replacing it. */
  output?: string;
  force?: boolean;
}

export interface SignOutcome {
  path: string;
  scheme: 'RSA-SHA256' | 'OpenPGP';
  publicKeyFile: string;
  files: number;
}

/**
 * `pkg package sign`: embeds the public key, signs the payload (every file but
 * security.json and signature.sig, in sorted path order, the public key included),
 * and records `security.digitalSignatures`. A directory is updated in place; a `.cap`
 * is rewritten through the pack pipeline, in place or to `output`. The key is checked
 * before anything is read or written.
 */
export class SignPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly schemes: SignatureSchemes,
    private readonly pipeline: PackPipeline,
    private readonly files: FileWriter,
    private readonly hasher: Hasher,
  ) {}

  async execute(request: SignRequest): Promise<SignOutcome> {
    const scheme = request.openpgp ? this.schemes.openpgp : this.schemes.rsa;
    const signer = await scheme.prepare(request.key);
    const source = await this.opener.open(request.location);
    try {
      if (isEncryptedPackage((path) => source.has(path))) throw new UsageError(`${request.location} is encrypted: sign the package before encrypting it`);
      if (source.kind === 'directory' && request.output) throw new UsageError('-o/--output applies to a .cap; a directory is signed in place');
      const kept = source.entries().filter(({ path }) => path !== SECURITY_FILE && !isSigningArtifact(path));
      const covered = sortPaths([...kept.map(({ path }) => path), signer.publicKeyFile]);
      const read = (path: string) => (path === signer.publicKeyFile ? once(signer.publicKey) : source.stream(path));
      const digests = new Map(covered.map((path) => [path, this.hasher.createSha256()]));
      const signature = await signer.sign(concatenated(covered, (path) => tap(read(path), (chunk) => digests.get(path)!.update(chunk))));
      const signatures: DigitalSignatures = { publicKey: signer.publicKeyFile, signatureFile: SIGNATURE_FILE, ...(scheme.certificateType ? { certificateType: scheme.certificateType } : {}) };
      const outcome = { scheme: request.openpgp ? ('OpenPGP' as const) : ('RSA-SHA256' as const), publicKeyFile: signer.publicKeyFile, files: covered.length };
      if (source.kind === 'directory') {
        const checksums = Object.fromEntries(covered.map((path) => [path, digests.get(path)!.digest()]));
        const write = new Map([
          [signer.publicKeyFile, signer.publicKey],
          [SIGNATURE_FILE, signature],
          [SECURITY_FILE, toJsonBytes(securityDocument({ checksums, digitalSignatures: signatures }))],
        ]);
        const stale = source.entries().filter(({ path }) => isSigningArtifact(path) && !write.has(path)).map(({ path }) => path);
        await this.files.update(source.location, { write, remove: stale });
        return { path: source.location, ...outcome };
      }
      return { path: await this.rewrite(source, kept, signer.publicKeyFile, signer.publicKey, signature, signatures, request), ...outcome };
    } finally {
      await source.close();
    }
  }

  private async rewrite(
    source: PackageSource,
    kept: ReadonlyArray<{ path: string; size: number }>,
    publicKeyFile: string,
    publicKey: Uint8Array,
    signature: Uint8Array,
    signatures: DigitalSignatures,
    request: SignRequest,
  ): Promise<string> {
    const files: PackFile[] = [...kept.map(({ path, size }) => ({ path, size, data: () => source.stream(path) })), { path: publicKeyFile, data: publicKey }, { path: SIGNATURE_FILE, data: signature }];
    const result = await this.pipeline.write(files, { ...splitFilePath(request.output ?? source.location), overwrite: request.output === undefined || request.force === true }, signatures);
    return result.path;
  }
}
