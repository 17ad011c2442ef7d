import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { GZIP_FRAMING, gzipMember } from '../../../src/domain/serving/gzip-member.js';

describe('gzipMember', () => {
  it('frames any raw deflate stream into a gzip member that gunzips to the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 4096 }), fc.string({ maxLength: 4096 }).map((text) => new TextEncoder().encode(text.repeat(3)))), fc.integer({ min: 0, max: 9 }), (input, level) => {
        const deflated = deflateRawSync(input, { level });
        const member = gzipMember(deflated, crc32(input), input.length);
        expect(member.length).toBe(deflated.length + GZIP_FRAMING);
        expect(Buffer.from(gunzipSync(member))).toEqual(Buffer.from(input));
      }),
      { numRuns: 300 },
    );
  });

  it('writes the size modulo 2^32 and a CRC-32 given as a signed number unsigned', () => {
    const member = gzipMember(new Uint8Array([3, 0]), -1, 2 ** 32 + 5);
    expect(Buffer.from(member.subarray(-8))).toEqual(Buffer.from([0xff, 0xff, 0xff, 0xff, 5, 0, 0, 0]));
  });
});
