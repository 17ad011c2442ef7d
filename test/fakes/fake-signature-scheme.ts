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
  const fingerprint = async (key: Uint8Array, role: string) => `FAKE:${createHash('sha256').update(keyText(key, role)).digest('hex')}`;
  // A trust file is one key per line; a line `revoked:<key>` revokes that key, as an imported revocation would.
  const revoked = async (publicKey: Uint8Array, trusted: Uint8Array) =>
    new TextDecoder().decode(trusted).split('\n').includes(`revoked:${keyText(publicKey, 'the embedded public key')}`);
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
    verify: async (payload, signature, publicKey, trusted) => {
      const text = keyText(publicKey, 'the embedded public key');
      if (trusted && (await revoked(publicKey, trusted))) return false;
      return new TextDecoder().decode(signature) === `signed:${await digest(payload)}:${text}`;
    },
    // Its embedded keys carry no revocations: only a trust file's copy revokes.
    revokedBy: async (_signature, publicKey, trusted) => (trusted && (await revoked(publicKey, trusted)) ? 'trusted' : undefined),
    // A signature `weak:...` stands for one made with a hash the scheme refuses.
    weakHash: async (signature) => (new TextDecoder().decode(signature).startsWith('weak:') ? 'SHA1' : undefined),
    fingerprint,
    fingerprints: async (file, role) => {
      const lines = new TextDecoder().decode(file).split('\n').filter((line) => line.startsWith(KEY_PREFIX));
      return lines.length > 0 ? Promise.all(lines.map((line) => fingerprint(new TextEncoder().encode(line), role))) : [await fingerprint(file, role)];
    },
  };
}
