import type { KeyWrapping } from '../../application/ports/envelope-crypto.js';
import { DecryptionError, KeyError } from '../../domain/errors.js';
import { importOpenPgp, lazyOpenPgp, readEveryKey, readEverySecretKey } from './openpgp-loader.js';
import type { OpenPgp, OpenPgpLoader } from './openpgp-loader.js';

/** More than any data encryption key, wrapped or not, can take. */
const MAX_WRAPPED_KEY_BYTES = 1024;

/** The OpenPGP variant of the envelope: the DEK as an armored OpenPGP message to the recipient. */
export class OpenPgpKeyWrapping implements KeyWrapping {
  readonly keyManagement = 'OpenPGP' as const;
  private readonly openpgp: () => Promise<OpenPgp>;

  constructor(load: OpenPgpLoader = importOpenPgp) {
    this.openpgp = lazyOpenPgp(load);
  }

  async wrap(dek: Uint8Array, recipient: Uint8Array): Promise<{ message: string }> {
    const openpgp = await this.openpgp();
    const keys = await readEveryKey(openpgp, recipient, 'the recipient key');
    // openpgp would take the first alone, and the holders of the others could not decrypt what they were meant to.
    if (keys.length > 1) {
      throw new KeyError(`the recipient key file holds ${keys.length} OpenPGP keys, and a package is encrypted for one recipient: export only theirs (\`gpg --armor --export FINGERPRINT\`)`);
    }
    const key = keys[0]!;
    // As for an RSA recipient: a secret key here is a mixed-up file, though its public part would do.
    if (key.isPrivate()) throw new KeyError("the recipient key is an OpenPGP secret key: give the recipient's public key (`gpg --armor --export`)");
    try {
      // Found first so that a key that cannot encrypt is a KeyError, not a failure of encrypt.
      await key.getEncryptionKey();
    } catch (error) {
      throw new KeyError('the recipient OpenPGP key has no usable encryption key (expired, revoked, too weak, or for signing only)', {
        cause: error,
      });
    }
    const message = await openpgp.encrypt({
      message: await openpgp.createMessage({ binary: dek }),
      encryptionKeys: key,
      format: 'armored',
    });
    return { message };
  }

  async unwrap(wrapped: { encryptedDek?: string; message?: string }, key: Uint8Array, passphrase?: string): Promise<Uint8Array> {
    if (typeof wrapped.message !== 'string') throw new DecryptionError('the envelope has no OpenPGP message to unwrap');
    const openpgp = await this.openpgp();
    const privateKeys = await readEverySecretKey(openpgp, key, passphrase, 'the OpenPGP decryption key');
    let message: Awaited<ReturnType<OpenPgp['readMessage']>>;
    try {
      message = await openpgp.readMessage({ armoredMessage: wrapped.message });
    } catch (error) {
      throw new DecryptionError('the envelope message is not an armored OpenPGP message', { cause: error });
    }
    try {
      // A data encryption key is 32 bytes: a compressed packet inflating to gigabytes (openpgp's default limit is none) stops here.
      const { data } = await openpgp.decrypt({ message, decryptionKeys: privateKeys, format: 'binary', config: { maxDecompressedMessageSize: MAX_WRAPPED_KEY_BYTES } });
      return new Uint8Array(data);
    } catch (error) {
      throw new DecryptionError('the OpenPGP key does not decrypt the data encryption key: it is not the key the package was encrypted for, or the message was altered', {
        cause: error,
      });
    }
  }
}
