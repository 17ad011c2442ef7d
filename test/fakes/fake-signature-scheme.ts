import { createHash } from 'node:crypto';
import type { SignatureScheme } from '../../src/application/ports/signature-scheme.js';

/** A stand-in signature for unit tests: "signed:<sha256 of payload>:<key>", checked the same way. */
export function fakeScheme(certificateType?: 'OpenPGP'): SignatureScheme {
  const digest = async (payload: AsyncIterable<Uint8Array>) => {
    const hash = createHash('sha256');
    for await (const chunk of payload) hash.update(chunk);
    return hash.digest('hex');
  };
  return {
    certificateType,
    prepare: async ({ key }) => ({
      publicKeyFile: certificateType ? 'signature.pub.asc' : 'signature.pub.pem',
      publicKey: key,
      sign: async (payload) => new TextEncoder().encode(`signed:${await digest(payload)}:${new TextDecoder().decode(key)}`),
    }),
    verify: async (payload, signature, publicKey) => new TextDecoder().decode(signature) === `signed:${await digest(payload)}:${new TextDecoder().decode(publicKey)}`,
    fingerprint: async (key) => `FAKE:${createHash('sha256').update(key).digest('hex')}`,
  };
}
