import { ContainerModule } from 'inversify';
import { AesGcmContentCipher } from '../../adapters/crypto/aes-gcm-content-cipher.js';
import { NodeHasher } from '../../adapters/crypto/node-hasher.js';
import { OpenPgpKeyWrapping } from '../../adapters/crypto/openpgp-key-wrapping.js';
import { OpenPgpSignatureScheme } from '../../adapters/crypto/openpgp-signature-scheme.js';
import { RsaOaepKeyWrapping } from '../../adapters/crypto/rsa-oaep-key-wrapping.js';
import { RsaSignatureScheme } from '../../adapters/crypto/rsa-signature-scheme.js';
import { PORT } from '../service-ids.js';

/** Hashing, signatures and envelopes: node:crypto, and openpgp imported on first use. */
export const cryptoModule = new ContainerModule(({ bind }) => {
  bind(PORT.Hasher).toDynamicValue(() => new NodeHasher()).inSingletonScope();
  bind(PORT.SignatureSchemes).toDynamicValue(() => ({ rsa: new RsaSignatureScheme(), openpgp: new OpenPgpSignatureScheme() })).inSingletonScope();
  bind(PORT.KeyWrappings).toDynamicValue(() => ({ rsa: new RsaOaepKeyWrapping(), openpgp: new OpenPgpKeyWrapping() })).inSingletonScope();
  bind(PORT.ContentCipher).toDynamicValue(() => new AesGcmContentCipher()).inSingletonScope();
});
