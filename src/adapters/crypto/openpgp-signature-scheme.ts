import type { PreparedSigner, SignatureScheme, SigningKey } from '../../application/ports/signature-scheme.js';
import { KeyError } from '../../domain/errors.js';
import { importOpenPgp, isArmored, lazyOpenPgp, readAnyKey, readEveryKey, readSecretKey } from './openpgp-loader.js';
import type { OpenPgp, OpenPgpLoader } from './openpgp-loader.js';
import type * as OpenPgpModule from 'openpgp';

/** Signatures one detached signature file may hold: gpg writes one per signing key. */
const MAX_SIGNATURE_PACKETS = 16;

/**
 * openpgp reads a web ReadableStream piece by piece, not an async iterable. The payload is
 * the package's size: gathered into one buffer, a 150 MB package took 12 s and 1 GB of
 * memory to verify (the reactor's start, too); streamed, about a second and 100 MB.
 */
function streamed(payload: AsyncIterable<Uint8Array>): OpenPgpModule.WebStream<Uint8Array> {
  const chunks = payload[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}

/** Reads a stream openpgp returns to its end; its signature is computed or checked as it is read, and a read error of the payload (a corrupt entry) comes out here as it was thrown. */
async function readToEnd<T extends Uint8Array | string>(stream: OpenPgpModule.WebStream<T>, each: (chunk: T) => void = () => undefined): Promise<void> {
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) each(next.value);
}

/**
 * A detached signature file, armored or binary; undefined when it does not parse or holds
 * more than MAX_SIGNATURE_PACKETS (each is checked over the whole payload, so 100,000 of
 * them, 16 MiB, would cost minutes).
 */
async function readDetached(openpgp: OpenPgp, signature: Uint8Array): Promise<Awaited<ReturnType<OpenPgp['readSignature']>> | undefined> {
  try {
    const detached = isArmored(signature)
      ? await openpgp.readSignature({ armoredSignature: Buffer.from(signature).toString('utf8') })
      : await openpgp.readSignature({ binarySignature: signature });
    return detached.packets.length > MAX_SIGNATURE_PACKETS ? undefined : detached;
  } catch {
    return undefined;
  }
}

/** OpenPGP detached, armored signatures with SHA-256 (SPEC.md, signing rules 4 to 6). */
export class OpenPgpSignatureScheme implements SignatureScheme {
  readonly certificateType = 'OpenPGP' as const;
  private readonly openpgp: () => Promise<OpenPgp>;

  constructor(load: OpenPgpLoader = importOpenPgp) {
    this.openpgp = lazyOpenPgp(load);
  }

  async prepare(key: SigningKey): Promise<PreparedSigner> {
    const openpgp = await this.openpgp();
    // openpgp would sign with the first alone: which one the user meant, the file does not say.
    const secrets = (await readEveryKey(openpgp, key.key, 'the OpenPGP signing key').catch(() => [])).filter((each) => each.isPrivate()).length;
    if (secrets > 1) throw new KeyError(`the OpenPGP signing key file holds ${secrets} secret keys: export only the one to sign with (\`gpg --armor --export-secret-keys FINGERPRINT\`)`);
    const privateKey = await readSecretKey(openpgp, key.key, key.passphrase, 'the OpenPGP signing key');
    try {
      // Checked now rather than at sign time, so an expired, revoked, encrypt-only or
      // too weak key is reported before the package is written.
      await privateKey.getSigningKey();
    } catch (error) {
      throw new KeyError('the OpenPGP key has no usable signing key (expired, revoked, too weak, or for encryption only)', { cause: error });
    }
    const publicKey = privateKey.toPublic().armor();
    return {
      publicKeyFile: 'signature.pub.asc',
      publicKey: new Uint8Array(Buffer.from(publicKey, 'utf8')),
      async sign(payload) {
        const message = await openpgp.createMessage({ binary: streamed(payload) });
        const armored = await openpgp.sign({
          message,
          signingKeys: privateKey,
          detached: true,
          format: 'armored',
          config: { preferredHashAlgorithm: openpgp.enums.hash.sha256 },
        });
        let signature = '';
        await readToEnd(armored, (text) => (signature += text));
        return new Uint8Array(Buffer.from(signature, 'utf8'));
      },
    };
  }

  async verify(payload: AsyncIterable<Uint8Array>, signature: Uint8Array, publicKey: Uint8Array, trusted?: Uint8Array): Promise<boolean> {
    const openpgp = await this.openpgp();
    const key = await this.keyToCheck(openpgp, publicKey, trusted);
    const detached = await readDetached(openpgp, signature);
    // An unreadable signature file proves nothing about the payload: not a valid signature.
    if (detached === undefined) return false;
    const message = await openpgp.createMessage({ binary: streamed(payload) });
    let verification;
    try {
      verification = await openpgp.verify({ message, signature: detached, verificationKeys: key, format: 'binary' });
    } catch {
      return false;
    }
    const { signatures, data } = verification;
    // Settled only once the payload is read; a read that fails must not leave them rejected unheard.
    for (const result of signatures) result.verified.catch(() => undefined);
    await readToEnd(data);
    for (const result of signatures) {
      try {
        // `verified` rejects for a bad signature and for one by a key not given.
        if (await result.verified) return true;
      } catch {
        // Try the next one: a detached signature file may hold several.
      }
    }
    return false;
  }

  async revokedBy(signature: Uint8Array, publicKey: Uint8Array, trusted?: Uint8Array): Promise<'trusted' | 'embedded' | undefined> {
    const openpgp = await this.openpgp();
    const embedded = await readAnyKey(openpgp, publicKey, 'the embedded public key');
    const signers = (await readDetached(openpgp, signature))?.getSigningKeyIDs() ?? [];
    // Each copy on its own: their merge would not say which of them carries the revocation.
    const own = trusted === undefined ? undefined : await this.trustedCopy(openpgp, embedded, trusted);
    if (own !== undefined && (await revokesSigner(own, signers))) return 'trusted';
    if (await revokesSigner(embedded, signers)) return 'embedded';
    return undefined;
  }

  /** openpgp refuses the hashes of its rejectMessageHashAlgorithms (MD5, RIPEMD-160, SHA-1): weak when every signature in the file uses one. */
  async weakHash(signature: Uint8Array): Promise<string | undefined> {
    const openpgp = await this.openpgp();
    const hashes = (await readDetached(openpgp, signature))?.packets.map((packet) => packet.hashAlgorithm).filter((hash) => hash !== null) ?? [];
    if (hashes.length === 0 || !hashes.every((hash) => openpgp.config.rejectMessageHashAlgorithms.has(hash))) return undefined;
    return openpgp.enums.read(openpgp.enums.hash, hashes[0]!).toUpperCase();
  }

  /** The primary key's fingerprint, in the upper-case hex gpg prints. */
  async fingerprint(key: Uint8Array, role: string): Promise<string> {
    return (await readAnyKey(await this.openpgp(), key, role)).getFingerprint().toUpperCase();
  }

  async fingerprints(file: Uint8Array, role: string): Promise<string[]> {
    return (await readEveryKey(await this.openpgp(), file, role)).map((key) => key.getFingerprint().toUpperCase());
  }

  /**
   * The embedded key, or the user's copy of it updated with what the embedded one adds.
   * The package's copy is the signer's to edit: it can leave out the revocation the user
   * has imported. Subkeys and self-signatures it adds are certified by the primary key
   * the user trusts, so they are merged in; the user's revocations stay.
   */
  private async keyToCheck(openpgp: OpenPgp, publicKey: Uint8Array, trusted: Uint8Array | undefined): Promise<OpenPgpModule.Key> {
    const embedded = await readAnyKey(openpgp, publicKey, 'the embedded public key');
    const own = trusted === undefined ? undefined : await this.trustedCopy(openpgp, embedded, trusted);
    if (own === undefined) return embedded;
    try {
      return await own.update(embedded);
    } catch (error) {
      throw new KeyError('the embedded public key does not merge with the trusted copy of it', { cause: error });
    }
  }

  /** The trust file's copy of the embedded key, found by fingerprint: the file may hold other keys too. */
  private async trustedCopy(openpgp: OpenPgp, embedded: OpenPgpModule.Key, trusted: Uint8Array): Promise<OpenPgpModule.Key | undefined> {
    return (await readEveryKey(openpgp, trusted, 'the trusted key')).find((key) => key.getFingerprint() === embedded.getFingerprint());
  }
}

/** Whether this copy of a key revokes it, or the subkey that made one of `signers`' signatures (a key usually signs with a subkey, and its owner may revoke that one alone). */
async function revokesSigner(key: OpenPgpModule.Key, signers: readonly OpenPgpModule.KeyID[]): Promise<boolean> {
  if (await key.isRevoked()) return true;
  for (const subkey of key.getSubkeys()) {
    if (!signers.some((id) => id.equals(subkey.getKeyID()))) continue;
    for (const binding of subkey.bindingSignatures) if (await subkey.isRevoked(binding, key.keyPacket)) return true;
  }
  return false;
}
