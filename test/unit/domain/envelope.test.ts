import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { fromBase64 } from '../../../src/application/shared/bytes.js';
import { PackageFormatError } from '../../../src/domain/errors.js';
import { normalizeEnvelope } from '../../../src/domain/integrity/envelope.js';

const envelope = (iv: string) => ({ encryption: { algorithm: 'AES-256-GCM', keyManagement: 'RSA-OAEP-SHA256', iv, authTag: 'gYvYycMy2zwIC1tyBOkOew==', encryptedDek: 'AAAA' } });

describe('the encryption envelope', () => {
  it('takes base64 padded or not, and refuses what no decoder reads (a stranger\'s signature.json made decrypt an InternalError)', () => {
    for (const iv of ['8EWXB1CnibKQ5U4T', 'AAE=', 'AAE', 'AA==', 'AA']) expect(normalizeEnvelope(envelope(iv)).iv).toBe(iv);
    for (const iv of ['', 'A', 'AAAAA', 'gYvYycMzwIC1tyBOkOew===', 'AA=A', 'A===', 'AAA==', '=AAA', 'AA A'])
      expect(() => normalizeEnvelope(envelope(iv))).toThrow(new PackageFormatError('signature.json: "iv" must be a base64 string'));
  });

  it('hands on only base64 that decodes', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'AB+/=', 'a', '0') }), (iv) => {
        let accepted = true;
        try {
          normalizeEnvelope(envelope(iv));
        } catch (error) {
          expect(error).toBeInstanceOf(PackageFormatError);
          accepted = false;
        }
        if (accepted) expect(() => fromBase64(iv)).not.toThrow();
      }),
      { numRuns: 3000 },
    );
  });
});
