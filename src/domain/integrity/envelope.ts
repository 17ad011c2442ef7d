import { PackageFormatError } from '../errors.js';
import { isRecord } from '../package/documents.js';

/** Entries of an encrypted `.cap`: metadata in clear, the envelope, and the ciphertext of the inner `.cap`. */
export const ENVELOPE_FILE = 'signature.json';
export const CIPHERTEXT_FILE = 'package.enc';

export type KeyManagement = 'RSA-OAEP-SHA256' | 'OpenPGP';

export interface Envelope {
  algorithm: 'AES-256-GCM';
  keyManagement: KeyManagement;
  /** RSA: the DEK wrapped with RSA-OAEP/SHA-256, base64. */
  encryptedDek?: string;
  /** OpenPGP: an armored message holding the DEK. */
  message?: string;
  iv: string;
  authTag: string;
}

/** Base64 a decoder reads: whole groups of four, the last padded or not (`atob` refuses a lone sixth bit group, or padding that does not end a group). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)$/;

/** A package is encrypted when it carries the envelope and the ciphertext. */
export function isEncryptedPackage(has: (path: string) => boolean): boolean {
  return has(ENVELOPE_FILE) && has(CIPHERTEXT_FILE);
}

/** Reads `signature.json` of an encrypted package; an unknown key management or a missing field is a format error. */
export function normalizeEnvelope(raw: unknown): Envelope {
  const body = isRecord(raw) && isRecord(raw.encryption) ? raw.encryption : undefined;
  if (!body) throw new PackageFormatError(`${ENVELOPE_FILE}: an "encryption" object is expected`);
  if (body.algorithm !== 'AES-256-GCM') throw new PackageFormatError(`${ENVELOPE_FILE}: algorithm ${JSON.stringify(body.algorithm)} is not supported (only AES-256-GCM)`);
  const keyManagement = body.keyManagement;
  if (keyManagement !== 'RSA-OAEP-SHA256' && keyManagement !== 'OpenPGP') {
    throw new PackageFormatError(`${ENVELOPE_FILE}: keyManagement ${JSON.stringify(keyManagement)} is not known (RSA-OAEP-SHA256 or OpenPGP)`);
  }
  const envelope: Envelope = { algorithm: 'AES-256-GCM', keyManagement, iv: base64Field(body, 'iv'), authTag: base64Field(body, 'authTag') };
  if (keyManagement === 'RSA-OAEP-SHA256') envelope.encryptedDek = base64Field(body, 'encryptedDek');
  else if (typeof body.message === 'string' && body.message.includes('BEGIN PGP MESSAGE')) envelope.message = body.message;
  else throw new PackageFormatError(`${ENVELOPE_FILE}: an OpenPGP envelope needs an armored "message"`);
  return envelope;
}

function base64Field(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || !BASE64.test(value)) throw new PackageFormatError(`${ENVELOPE_FILE}: "${field}" must be a base64 string`);
  return value;
}

export function envelopeDocument(envelope: Envelope): { encryption: Envelope } {
  return { encryption: envelope };
}
