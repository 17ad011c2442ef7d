import { UsageError } from '../../domain/errors.js';
import { isEncryptedPackage } from '../../domain/integrity/envelope.js';
import { readMetadata } from '../package/package-reader.js';
import type { ContentCipher } from '../ports/envelope-crypto.js';
import type { FileWriter } from '../ports/file-writer.js';
import type { PackageOpener } from '../ports/package-source.js';
import { decryptEnvelope } from '../signing/envelope-opener.js';
import type { DecryptionKeys } from '../ports/envelope-crypto.js';
import type { KeyWrappings } from '../signing/signature-schemes.js';

export interface DecryptRequest {
  location: string;
  keys: DecryptionKeys;
  /** Defaults to `<directory>/<name>-decrypted.cap`, name from the clear metadata.json. */
  output?: string;
  /** Where the default output goes. */
  directory: string;
  force: boolean;
}

/**
 * `pkg package decrypt`: key management is detected from the envelope; the plaintext
 * `.cap` is written beside its final name and renamed into place only once GCM has
 * authenticated all of it, so a wrong key or a flipped bit leaves no output. Only its
 * owner may read it (mode 0600).
 */
export class DecryptPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly files: FileWriter,
    private readonly wrappings: KeyWrappings,
    private readonly cipher: ContentCipher,
  ) {}

  async execute(request: DecryptRequest): Promise<{ path: string; name: string; version: string }> {
    const source = await this.opener.open(request.location);
    try {
      if (!isEncryptedPackage((path) => source.has(path))) throw new UsageError(`${request.location} is not encrypted (no signature.json envelope and package.enc)`);
      const { name, version } = await readMetadata(source);
      const output = request.output ?? `${request.directory}/${name}-decrypted.cap`;
      // Plaintext someone meant only a key holder to read: other users of the machine may not, as they may not read what a reactor decrypts or saves.
      await this.files.write(output, await decryptEnvelope(source, request.keys, this.wrappings, this.cipher), { overwrite: request.force, mode: 0o600 });
      return { path: output, name, version };
    } finally {
      await source.close();
    }
  }
}
