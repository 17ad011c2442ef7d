/** ZIP record layouts (PKWARE APPNOTE 6.3): local headers, data descriptors, central directory, end records. */

export const STORED = 0;
export const DEFLATED = 8;
const UTF8_NAMES = 0x0800;
/** General-purpose flag bit 3: CRC-32 and sizes follow the data, and the local header holds zeros (read, never written). */
export const DATA_DESCRIPTOR = 0x0008;
const MADE_BY_UNIX = (3 << 8) | 45;
const VERSION_DEFLATE = 20;
const VERSION_ZIP64 = 45;
/** A 32-bit field saturated: the value is in the zip64 extra field. */
export const U32_MAX = 0xffffffff;
/** 1980-01-01 00:00:00, the DOS epoch: fixed so archives are reproducible. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;
const FILE_ATTRIBUTES = (0o100644 << 16) >>> 0;

export interface CentralRecord {
  name: Buffer;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  /** Written with streamedLocalHeader: its sizes sit in zip64 extra fields. */
  streamed: boolean;
}

/** The fixed part of a local header, before the name and extra field. */
export const LOCAL_HEADER_SIZE = 30;

export function localHeader(name: Buffer, method: number, crc: number, compressedSize: number, size: number): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(VERSION_DEFLATE, 4);
  header.writeUInt16LE(UTF8_NAMES, 6);
  header.writeUInt16LE(method, 8);
  header.writeUInt16LE(DOS_TIME, 10);
  header.writeUInt16LE(DOS_DATE, 12);
  header.writeUInt32LE(crc, 14);
  header.writeUInt32LE(compressedSize, 18);
  header.writeUInt32LE(size, 22);
  header.writeUInt16LE(name.length, 26);
  header.writeUInt16LE(0, 28);
  return Buffer.concat([header, name]);
}

/**
 * The local header of a streamed entry, whose CRC-32 and sizes are known only once its
 * data is written: written first with zeros, then again in place with the real values.
 * Its length never changes, so its sizes always sit in a zip64 extra field. (Not a data
 * descriptor: Java's ZipInputStream refuses one after a stored entry, and JDK 17 misreads
 * a zip64 one after a deflated entry.)
 */
export function streamedLocalHeader(name: Buffer, method: number, crc = 0, compressedSize = 0, size = 0): Buffer {
  const header = Buffer.alloc(30);
  const extra = Buffer.alloc(20);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(VERSION_ZIP64, 4);
  header.writeUInt16LE(UTF8_NAMES, 6);
  header.writeUInt16LE(method, 8);
  header.writeUInt16LE(DOS_TIME, 10);
  header.writeUInt16LE(DOS_DATE, 12);
  header.writeUInt32LE(crc, 14);
  header.writeUInt32LE(U32_MAX, 18);
  header.writeUInt32LE(U32_MAX, 22);
  header.writeUInt16LE(name.length, 26);
  header.writeUInt16LE(extra.length, 28);
  extra.writeUInt16LE(0x0001, 0);
  extra.writeUInt16LE(16, 2);
  extra.writeBigUInt64LE(BigInt(size), 4);
  extra.writeBigUInt64LE(BigInt(compressedSize), 12);
  return Buffer.concat([header, name, extra]);
}

export function centralHeader(record: CentralRecord): Buffer {
  const needs64 = record.streamed || record.size >= U32_MAX || record.compressedSize >= U32_MAX || record.offset >= U32_MAX;
  const extra = needs64 ? Buffer.alloc(28) : Buffer.alloc(0);
  if (needs64) {
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(24, 2);
    extra.writeBigUInt64LE(BigInt(record.size), 4);
    extra.writeBigUInt64LE(BigInt(record.compressedSize), 12);
    extra.writeBigUInt64LE(BigInt(record.offset), 20);
  }
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(MADE_BY_UNIX, 4);
  header.writeUInt16LE(needs64 ? VERSION_ZIP64 : VERSION_DEFLATE, 6);
  header.writeUInt16LE(UTF8_NAMES, 8);
  header.writeUInt16LE(record.method, 10);
  header.writeUInt16LE(DOS_TIME, 12);
  header.writeUInt16LE(DOS_DATE, 14);
  header.writeUInt32LE(record.crc, 16);
  header.writeUInt32LE(needs64 ? U32_MAX : record.compressedSize, 20);
  header.writeUInt32LE(needs64 ? U32_MAX : record.size, 24);
  header.writeUInt16LE(record.name.length, 28);
  header.writeUInt16LE(extra.length, 30);
  header.writeUInt16LE(0, 32);
  header.writeUInt16LE(0, 34);
  header.writeUInt16LE(0, 36);
  header.writeUInt32LE(FILE_ATTRIBUTES, 38);
  header.writeUInt32LE(needs64 ? U32_MAX : record.offset, 42);
  return Buffer.concat([header, record.name, extra]);
}

/** End of central directory, with the zip64 records in front when any count or offset needs them. */
export function endRecords(entries: number, centralOffset: number, centralSize: number): Buffer {
  const needs64 = entries >= 0xffff || centralOffset >= U32_MAX || centralSize >= U32_MAX;
  const parts: Buffer[] = [];
  if (needs64) {
    const zip64End = Buffer.alloc(56);
    zip64End.writeUInt32LE(0x06064b50, 0);
    zip64End.writeBigUInt64LE(44n, 4);
    zip64End.writeUInt16LE(MADE_BY_UNIX, 12);
    zip64End.writeUInt16LE(VERSION_ZIP64, 14);
    zip64End.writeBigUInt64LE(BigInt(entries), 24);
    zip64End.writeBigUInt64LE(BigInt(entries), 32);
    zip64End.writeBigUInt64LE(BigInt(centralSize), 40);
    zip64End.writeBigUInt64LE(BigInt(centralOffset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(centralOffset + centralSize), 8);
    locator.writeUInt32LE(1, 16);
    parts.push(zip64End, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries, 0xffff), 10);
  end.writeUInt32LE(Math.min(centralSize, U32_MAX), 12);
  end.writeUInt32LE(Math.min(centralOffset, U32_MAX), 16);
  parts.push(end);
  return Buffer.concat(parts);
}
