import { UsageError } from '../../domain/errors.js';
import { CIPHERTEXT_FILE, ENVELOPE_FILE, envelopeDocument, isEncryptedPackage, type Envelope } from '../../domain/integrity/envelope.js';
import { normalizeSecurity } from '../../domain/integrity/security.js';
import { METADATA_FILE, SECURITY_FILE } from '../../domain/package/package-paths.js';
import { readMetadata, readOptional, toJsonBytes } from '../package/package-reader.js';
import type { ArchiveWriter } from '../ports/archive-writer.js';
import type { ContentCipher } from '../ports/envelope-crypto.js';
import type { FileWriter } from '../ports/file-writer.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';
import { toBase64 } from '../shared/bytes.js';
import { splitFilePath } from '../shared/file-path.js';
import type { KeyWrappings } from '../signing/signature-schemes.js';
import { assertVerified, type PackageChecks } from '../signing/verified-package.js';
import type { PackPackage } from './pack-package.js';

export interface EncryptRequest {
  location: string;
  /** RSA: a PEM public key or certificate. OpenPGP: the recipient's public key. */
  recipient: Uint8Array;
  openpgp: boolean;
  output: string;
  force: boolean;
}

/**
 * `pkg package encrypt`: the envelope of SPEC.md. A random 256-bit DEK encrypts the
 * inner plaintext `.cap` with AES-256-GCM (a directory is packed first); the DEK is
 * wrapped for the recipient; the output holds `metadata.json` in clear,
 * `signature.json` (the envelope) and `package.enc`. The recipient key is checked
 * before anything is read, and a failure leaves no output behind.
 *
 * A `.cap` is sealed as it is, its security.json and signature with it, so they are checked
 * first, as the reactor checks them: sealed, a tampered package would be found only by
 * whoever decrypts it. A directory is packed, which writes its checksums anew, as `pack` does.
 */
export class EncryptPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly packer: PackPackage,
    private readonly writer: ArchiveWriter,
    private readonly files: FileWriter,
    private readonly wrappings: KeyWrappings,
    private readonly cipher: ContentCipher,
    private readonly checks: PackageChecks,
  ) {}

  async execute(request: EncryptRequest): Promise<{ path: string; keyManagement: Envelope['keyManagement']; sha256: string }> {
    const wrapping = request.openpgp ? this.wrappings.openpgp : this.wrappings.rsa;
    const dek = this.cipher.randomBytes(32);
    const iv = this.cipher.randomBytes(12);
    const wrapped = await wrapping.wrap(dek, request.recipient);
    const source = await this.opener.open(request.location);
    const scratch = plaintextScratch(request.output);
    try {
      if (isEncryptedPackage((path) => source.has(path))) throw new UsageError(`${request.location} is already encrypted`);
      const metadata = await source.read(METADATA_FILE);
      await readMetadata(source);
      if (source.archiveBytes) await assertVerified(source, await readOptional(source, SECURITY_FILE, normalizeSecurity), this.checks);
      const plain = source.archiveBytes ? source : await this.packed(source, scratch);
      try {
        const encrypted = this.cipher.encrypt(plain.archiveBytes!(), dek, iv);
        const { directory, fileName } = splitFilePath(request.output);
        const sink = await this.writer.create(directory, fileName, { overwrite: request.force });
        try {
          await sink.add(METADATA_FILE, metadata, { store: false });
          await sink.add(CIPHERTEXT_FILE, encrypted.ciphertext, { store: true });
          const envelope: Envelope = { algorithm: 'AES-256-GCM', keyManagement: wrapping.keyManagement, ...wrapped, iv: toBase64(iv), authTag: toBase64(encrypted.authTag()) };
          await sink.add(ENVELOPE_FILE, toJsonBytes(envelopeDocument(envelope)), { store: false });
          const { path, sha256 } = await sink.commit();
          return { path, keyManagement: wrapping.keyManagement, sha256 };
        } catch (error) {
          await sink.abort();
          throw error;
        }
      } finally {
        if (plain !== source) await plain.close();
      }
    } finally {
      await source.close();
      await this.files.remove(scratch);
    }
  }

  /** A directory becomes its packed `.cap` first, in a scratch directory beside the output. */
  private async packed(source: PackageSource, scratch: string): Promise<PackageSource> {
    const { path } = await this.packer.pack(source, { directory: scratch, overwrite: true });
    return this.opener.open(path);
  }
}

/** Where a directory is packed before it is encrypted: its plaintext, to be removed however the command ends. */
export function plaintextScratch(output: string): string {
  return `${output}.plain-partial`;
}
