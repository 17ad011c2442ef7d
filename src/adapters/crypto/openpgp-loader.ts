import type * as OpenPgpModule from 'openpgp';
import { KeyError, OpenPgpUnavailableError } from '../../domain/errors.js';

export type OpenPgp = typeof OpenPgpModule;
export type OpenPgpLoader = () => Promise<OpenPgp>;

/**
 * A dynamic import keeps openpgp, a large library, off the start-up path of every command
 * that never touches an OpenPGP key, and lets the bundler put it in a chunk of its own.
 */
export const importOpenPgp: OpenPgpLoader = () => import('openpgp');

/**
 * Loads openpgp on first use and then reuses it. A failed load is not remembered, so a
 * long-running reactor can succeed once the package has been installed.
 */
export function lazyOpenPgp(load: OpenPgpLoader): () => Promise<OpenPgp> {
  let pending: Promise<OpenPgp> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw new OpenPgpUnavailableError(
        'OpenPGP support needs the openpgp package, which could not be loaded; install it with `npm install openpgp`',
        { cause: error },
      );
    });
    return pending;
  };
}

const ARMOR = /^\s*-----BEGIN PGP /;

/** Whether OpenPGP data is ASCII-armored rather than binary packets. */
export function isArmored(bytes: Uint8Array): boolean {
  return ARMOR.test(Buffer.from(bytes.subarray(0, 64)).toString('latin1'));
}

/**
 * An OpenPGP public or secret key given armored or as binary packets, as `gpg --export`
 * writes either. openpgp's own message can quote the input, so it is kept as the cause only.
 */
export async function readAnyKey(openpgp: OpenPgp, bytes: Uint8Array, role: string): Promise<OpenPgpModule.Key> {
  try {
    return isArmored(bytes)
      ? await openpgp.readKey({ armoredKey: Buffer.from(bytes).toString('utf8') })
      : await openpgp.readKey({ binaryKey: bytes });
  } catch (error) {
    throw new KeyError(`${role} is not an OpenPGP key`, { cause: error });
  }
}

const ARMORED_BLOCK = /-----BEGIN PGP (?:PUBLIC|PRIVATE) KEY BLOCK-----[\s\S]*?-----END PGP (?:PUBLIC|PRIVATE) KEY BLOCK-----/g;

/**
 * Every key in a key file: one export may hold several keys, and files concatenated by
 * hand hold several armored blocks, each of which openpgp reads on its own.
 */
export async function readEveryKey(openpgp: OpenPgp, bytes: Uint8Array, role: string): Promise<OpenPgpModule.Key[]> {
  try {
    if (!isArmored(bytes)) return await openpgp.readKeys({ binaryKeys: bytes });
    const blocks = Buffer.from(bytes).toString('utf8').match(ARMORED_BLOCK) ?? [];
    const keys: OpenPgpModule.Key[] = [];
    for (const block of blocks) keys.push(...(await openpgp.readKeys({ armoredKeys: block })));
    if (keys.length === 0) throw new Error('no key block');
    return keys;
  } catch (error) {
    throw new KeyError(`${role} is not an OpenPGP key`, { cause: error });
  }
}

/** A secret key ready to use: unlocked with the passphrase when it is protected. */
export async function readSecretKey(
  openpgp: OpenPgp,
  bytes: Uint8Array,
  passphrase: string | undefined,
  role: string,
): Promise<OpenPgpModule.PrivateKey> {
  let key: OpenPgpModule.PrivateKey;
  try {
    key = isArmored(bytes)
      ? await openpgp.readPrivateKey({ armoredKey: Buffer.from(bytes).toString('utf8') })
      : await openpgp.readPrivateKey({ binaryKey: bytes });
  } catch (error) {
    throw new KeyError(`${role} is not an OpenPGP secret key`, { cause: error });
  }
  return unlocked(openpgp, key, passphrase, role);
}

/**
 * Every secret key of a key file, each unlocked as readSecretKey unlocks one: an export of
 * a keyring (`gpg --export-secret-keys` with no name) holds several, and any may be the one needed.
 */
export async function readEverySecretKey(
  openpgp: OpenPgp,
  bytes: Uint8Array,
  passphrase: string | undefined,
  role: string,
): Promise<OpenPgpModule.PrivateKey[]> {
  let keys: OpenPgpModule.PrivateKey[];
  try {
    keys = (await readEveryKey(openpgp, bytes, role)).filter((key): key is OpenPgpModule.PrivateKey => key.isPrivate());
  } catch (error) {
    throw new KeyError(`${role} is not an OpenPGP secret key`, { cause: error });
  }
  if (keys.length === 0) throw new KeyError(`${role} is not an OpenPGP secret key`);
  return Promise.all(keys.map((key) => unlocked(openpgp, key, passphrase, role)));
}

async function unlocked(openpgp: OpenPgp, key: OpenPgpModule.PrivateKey, passphrase: string | undefined, role: string): Promise<OpenPgpModule.PrivateKey> {
  if (key.isDecrypted()) return key;
  if (passphrase === undefined) throw new KeyError(`${role} is protected by a passphrase, and none was given`);
  try {
    return await openpgp.decryptKey({ privateKey: key, passphrase });
  } catch (error) {
    throw new KeyError(`the passphrase does not unlock ${role}`, { cause: error });
  }
}
