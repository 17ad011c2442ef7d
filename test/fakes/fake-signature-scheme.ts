import { createHash } from 'node:crypto';
import type { SignatureScheme } from '../../src/application/ports/signature-scheme.js';
import { KeyError } from '../../src/domain/errors.js';

const KEY_PREFIX = 'fake-key:';

/** A key the fake scheme takes: its public key is the same bytes. */
export function fakeKey(name: string): Uint8Array {
  return new TextEncoder().encode(`${KEY_PREFIX}${name}`);
}

/**
 * A stand-in signature scheme for unit tests: keys are `fake-key:<name>` (fakeKey), a
 * signature is "signed:<sha256 of payload>:<key>", checked the same way; anything else
 * offered as a key is KeyError, as the real schemes say. Kept honest by
 * test/contracts/signature-scheme.contract.ts.
 */
export function fakeScheme(certificateType?: 'OpenPGP'): SignatureScheme {
  const digest = async (payload: AsyncIterable<Uint8Array>) => {
    const hash = createHash('sha256');
    for await (const chunk of payload) hash.update(chunk);
    return hash.digest('hex');
  };
  const keyText = (key: Uint8Array, role: string) => {
    const text = new TextDecoder().decode(key);
    if (!text.startsWith(KEY_PREFIX) || text.length === KEY_PREFIX.length) throw new KeyError(`${role} is not a key of the fake scheme`);
    return text;
  };
  return {
    certificateType,
    prepare: async ({ key }) => {
      const text = keyText(key, 'the signing key');
      return {
        publicKeyFile: certificateType ? 'signature.pub.asc' : 'signature.pub.pem',
        publicKey: key.slice(),
        sign: async (payload) => new TextEncoder().encode(`signed:${await digest(payload)}:${text}`),
      };
    },
    verify: async (payload, signature, publicKey) => {
      const text = keyText(publicKey, 'the embedded public key');
      return new TextDecoder().decode(signature) === `signed:${await digest(payload)}:${text}`;
    },
    fingerprint: async (key, role) => `FAKE:${createHash('sha256').update(keyText(key, role)).digest('hex')}`,
  };
}
