import { X509Certificate, createHash, createPrivateKey, createPublicKey, createSign, createVerify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { PreparedSigner, SignatureScheme, SigningKey } from '../../application/ports/signature-scheme.js';
import { KeyError } from '../../domain/errors.js';

/** SPEC.md, signing rule 1. */
export const MINIMUM_RSA_BITS = 2048;

function isEncryptedPem(pem: Buffer): boolean {
  const text = pem.toString('latin1');
  return text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || text.includes('Proc-Type: 4,ENCRYPTED');
}

function requireRsa(key: KeyObject, role: string, minimumBits: number): void {
  // rsa-pss keys are refused too: they cannot make the PKCS#1 v1.5 signatures other verifiers expect.
  if (key.asymmetricKeyType !== 'rsa') throw new KeyError(`${role} is not an RSA key (its type: ${key.asymmetricKeyType ?? 'not asymmetric'})`);
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < minimumBits) throw new KeyError(`${role} is a ${bits}-bit RSA key; at least ${minimumBits} bits are required`);
}

/**
 * An RSA private key in PEM form (PKCS#1 or PKCS#8, encrypted or not). Node's own error
 * text stays in `cause`: the message names the problem, never the key.
 */
export function readRsaPrivateKey(pem: Uint8Array, role: string, passphrase?: string, minimumBits = MINIMUM_RSA_BITS): KeyObject {
  const bytes = Buffer.from(pem);
  let key: KeyObject;
  try {
    key = createPrivateKey(passphrase === undefined ? { key: bytes, format: 'pem' } : { key: bytes, format: 'pem', passphrase });
  } catch (error) {
    if (isEncryptedPem(bytes)) {
      throw new KeyError(
        passphrase === undefined ? `${role} is protected by a passphrase, and none was given` : `the passphrase does not unlock ${role}`,
        { cause: error },
      );
    }
    throw new KeyError(`${role} is not an RSA private key in PEM form`, { cause: error });
  }
  requireRsa(key, role, minimumBits);
  return key;
}

/**
 * The public key held by a PEM: a public key (SPKI or PKCS#1), a certificate, or an
 * unencrypted private key. Node's createPublicKey takes all of them.
 */
function readPublicKey(pem: Uint8Array, role: string): KeyObject {
  try {
    return createPublicKey({ key: Buffer.from(pem), format: 'pem' });
  } catch (error) {
    throw new KeyError(`${role} is not a public key or certificate in PEM form`, { cause: error });
  }
}

/** An RSA public key from a PEM public key or certificate, as a recipient or an embedded key. */
export function readRsaPublicKey(pem: Uint8Array, role: string, minimumBits = MINIMUM_RSA_BITS): KeyObject {
  const key = readPublicKey(pem, role);
  requireRsa(key, role, minimumBits);
  return key;
}

function readCertificate(pem: Uint8Array): X509Certificate {
  try {
    return new X509Certificate(Buffer.from(pem));
  } catch (error) {
    throw new KeyError('the certificate is not an X.509 certificate', { cause: error });
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

const spkiDer = (key: KeyObject): Buffer => key.export({ type: 'spki', format: 'der' });

/** RSA-SHA256 (PKCS#1 v1.5) with PEM keys and X.509 certificates, on node:crypto. */
export class RsaSignatureScheme implements SignatureScheme {
  readonly certificateType = undefined;

  async prepare(key: SigningKey): Promise<PreparedSigner> {
    const privateKey = readRsaPrivateKey(key.key, 'the signing key', key.passphrase);
    let publicKey = createPublicKey(privateKey);
    if (key.certificate !== undefined) {
      const certificate = readCertificate(key.certificate);
      if (!certificate.checkPrivateKey(privateKey)) throw new KeyError('the certificate does not match the signing key');
      // Signing rule 3: the certificate's key is what a verifier compares against.
      publicKey = certificate.publicKey;
    }
    return {
      publicKeyFile: 'signature.pub.pem',
      publicKey: new Uint8Array(Buffer.from(publicKey.export({ type: 'spki', format: 'pem' }))),
      async sign(payload) {
        const signer = createSign('sha256');
        for await (const chunk of payload) signer.update(chunk);
        return new Uint8Array(signer.sign(privateKey));
      },
    };
  }

  async verify(payload: AsyncIterable<Uint8Array>, signature: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
    // No size floor here: the floor stops weak keys being used to sign, and refusing to
    // check an old signature would not make it any more trustworthy.
    const key = readRsaPublicKey(publicKey, 'the embedded public key', 0);
    const verifier = createVerify('sha256');
    for await (const chunk of payload) verifier.update(chunk);
    try {
      return verifier.verify(key, signature);
    } catch {
      // A signature of the wrong shape is as bad as a wrong one.
      return false;
    }
  }

  /** `SHA256:` and the hex SHA-256 of the DER SubjectPublicKeyInfo: `openssl pkey -pubin -outform DER | sha256sum` gives the same digits. */
  async fingerprint(key: Uint8Array, role: string): Promise<string> {
    return `SHA256:${createHash('sha256').update(spkiDer(readPublicKey(key, role))).digest('hex')}`;
  }

  /** Each PEM block of the file that holds a public key (a bundle of certificates, say); a file of none is the KeyError a single key's would be. */
  async fingerprints(file: Uint8Array, role: string): Promise<string[]> {
    const blocks = Buffer.from(file).toString('latin1').match(PEM_BLOCK) ?? [];
    const fingerprints: string[] = [];
    for (const block of blocks) {
      try {
        fingerprints.push(await this.fingerprint(Buffer.from(block, 'latin1'), role));
      } catch (error) {
        if (!(error instanceof KeyError)) throw error;
      }
    }
    return fingerprints.length > 0 ? fingerprints : [await this.fingerprint(file, role)];
  }

  /** X.509 revocation (CRLs, OCSP) is not read: a pinned RSA key is trusted until unpinned. */
  async revokedBy(): Promise<undefined> {
    return undefined;
  }

  /** Always SHA-256: RSA-SHA256 is the scheme. */
  async weakHash(): Promise<undefined> {
    return undefined;
  }
}
