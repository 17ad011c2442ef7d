import { KeyRequiredError } from '../../domain/errors.js';
import { CIPHERTEXT_FILE, ENVELOPE_FILE, isEncryptedPackage, normalizeEnvelope, type Envelope } from '../../domain/integrity/envelope.js';
import { readDocument } from '../package/package-reader.js';
import type { ContentCipher, DecryptionKeys } from '../ports/envelope-crypto.js';
import type { PackageSource } from '../ports/package-source.js';
import type { KeyWrappings } from './signature-schemes.js';
import { fromBase64 } from '../shared/bytes.js';


/**
 * Opens the envelope of an encrypted package: key management is read from
 * `signature.json`, the DEK unwrapped with the matching key (KeyRequiredError when the
 * user gave none), and the inner `.cap` streamed out of AES-256-GCM. The stream throws
 * DecryptionError at its end when anything was altered, so its bytes may be used only
 * once it has ended.
 */
export async function decryptEnvelope(source: PackageSource, keys: DecryptionKeys, wrappings: KeyWrappings, cipher: ContentCipher): Promise<AsyncIterable<Uint8Array>> {
  const envelope: Envelope = normalizeEnvelope(await readDocument(source, ENVELOPE_FILE));
  const openpgp = envelope.keyManagement === 'OpenPGP';
  const key = openpgp ? keys.openpgpKey : keys.privateKey;
  if (!key) {
    throw new KeyRequiredError(
      `${source.location} is encrypted for ${envelope.keyManagement}: give ${openpgp ? '--key <OpenPGP secret key>' : '--private-key <RSA private key PEM>'} to open it`,
    );
  }
  const dek = await (openpgp ? wrappings.openpgp : wrappings.rsa).unwrap(envelope, key, keys.passphrase);
  return cipher.decrypt(source.stream(CIPHERTEXT_FILE), dek, fromBase64(envelope.iv), fromBase64(envelope.authTag));
}

/** Commands that read a package's content cannot see through an envelope: they say so and how to open it. */
export function refuseEncrypted(source: PackageSource, command: string): void {
  if (isEncryptedPackage((path) => source.has(path))) {
    throw new KeyRequiredError(`${source.location} is encrypted: decrypt it first (pkg package decrypt ${source.location} --private-key KEY | --key KEY), then ${command} the plaintext .cap`);
  }
}
