import { generateKeyPairSync } from 'node:crypto';
import { generateKey } from 'openpgp';
import { OpenPgpSignatureScheme } from '../../src/adapters/crypto/openpgp-signature-scheme.js';
import { RsaSignatureScheme } from '../../src/adapters/crypto/rsa-signature-scheme.js';
import { describeSignatureSchemeContract } from '../contracts/signature-scheme.contract.js';
import { fakeKey, fakeScheme } from '../fakes/fake-signature-scheme.js';

const notAKey = new TextEncoder().encode('-----BEGIN NOTHING-----\nnot a key\n-----END NOTHING-----\n');

describeSignatureSchemeContract('fakeScheme (fake), as RSA', () => ({ scheme: fakeScheme(), key: { key: fakeKey('a') }, otherKey: { key: fakeKey('b') }, notAKey }));
describeSignatureSchemeContract('fakeScheme (fake), as OpenPGP', () => ({ scheme: fakeScheme('OpenPGP'), key: { key: fakeKey('a') }, otherKey: { key: fakeKey('b') }, notAKey }));

/** RSA keys take a moment to make: two, made once, serve every test. */
const rsa = () => new TextEncoder().encode(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
const rsaKeys = [rsa(), rsa()] as const;
describeSignatureSchemeContract('RsaSignatureScheme', () => ({ scheme: new RsaSignatureScheme(), key: { key: rsaKeys[0] }, otherKey: { key: rsaKeys[1] }, notAKey }));

const pgp = async (name: string) => new TextEncoder().encode((await generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name, email: `${name}@example.org` }], format: 'armored' })).privateKey);
const pgpKeys = [await pgp('ann'), await pgp('bob')] as const;
describeSignatureSchemeContract('OpenPgpSignatureScheme', () => ({ scheme: new OpenPgpSignatureScheme(), key: { key: pgpKeys[0] }, otherKey: { key: pgpKeys[1] }, notAKey }));
