/**
 * A gzip member (RFC 1952) around a raw deflate stream: a 10-byte header, the stream as
 * it is, and an 8-byte trailer. A ZIP entry stored deflated already is such a stream, and
 * its central directory holds the trailer's CRC-32 and size, so an archive's entry is
 * sent gzip-encoded without compressing anything again.
 */

/** Header and trailer together. */
export const GZIP_FRAMING = 18;

/** Magic, CM = deflate, no flags, MTIME 0 (none), XFL 0, OS 255 (unknown): the same bytes for every entry. */
const HEADER = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff];

/** The whole member: header, `deflated`, then CRC-32 and size modulo 2^32, little-endian. */
export function gzipMember(deflated: Uint8Array, crc32: number, size: number): Uint8Array {
  const member = new Uint8Array(deflated.length + GZIP_FRAMING);
  member.set(HEADER, 0);
  member.set(deflated, HEADER.length);
  const trailer = new DataView(member.buffer, member.byteOffset + HEADER.length + deflated.length, 8);
  trailer.setUint32(0, crc32 >>> 0, true);
  trailer.setUint32(4, size % 2 ** 32, true);
  return member;
}
