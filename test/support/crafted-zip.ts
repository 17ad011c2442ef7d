import { deflateRawSync, crc32 } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/**
 * Archives no honest writer makes, built byte by byte (APPNOTE 4.3): entries whose
 * central records point at one shared deflate stream, the classic overlapping bomb.
 */
export function writeOverlappingZip(file: string, names: string[], content: Buffer): void {
  const compressed = deflateRawSync(content, { level: 9 });
  const crc = crc32(content);
  const first = Buffer.from(names[0]!);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0x0800, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(compressed.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(first.length, 26);
  const body = Buffer.concat([local, first, compressed]);
  const records = names.map((name) => {
    const bytes = Buffer.from(name);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(0x0800, 8);
    record.writeUInt16LE(8, 10);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(compressed.length, 20);
    record.writeUInt32LE(content.length, 24);
    record.writeUInt16LE(bytes.length, 28);
    record.writeUInt32LE(0, 42);
    return Buffer.concat([record, bytes]);
  });
  const directory = Buffer.concat(records);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(names.length, 8);
  end.writeUInt16LE(names.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(body.length, 16);
  writeFileSync(file, Buffer.concat([body, directory, end]));
}

/** A ZIP through Python's zipfile with each entry deflated at level 9: `zeros` entries are that many zero bytes. */
export function writeDeflatedZip(file: string, entries: Array<[name: string, content: string | { zeros: number }]>): void {
  const script = [
    'import sys, json, zipfile',
    'entries = json.loads(sys.argv[2])',
    'with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:',
    '    for name, content in entries:',
    '        z.writestr(name, bytes(content["zeros"]) if isinstance(content, dict) else content)',
  ].join('\n');
  execFileSync('python3', ['-c', script, file, JSON.stringify(entries)]);
}

/** One entry of `writeRawEntriesZip`: `data` goes in as given, with the declared method, CRC-32 and size. */
export interface RawZipEntry {
  name: string;
  data: Buffer;
  method: 0 | 8;
  crc: number;
  size: number;
}

/** A ZIP whose entries' stored bytes and declared fields are exactly as given: for data no honest writer stores. */
export function writeRawEntriesZip(file: string, entries: RawZipEntry[]): void {
  const parts: Buffer[] = [];
  const records: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const fields = (header: Buffer, at: number) => {
      header.writeUInt16LE(0x0800, at);
      header.writeUInt16LE(entry.method, at + 2);
      header.writeUInt32LE(entry.crc >>> 0, at + 8);
      header.writeUInt32LE(entry.data.length, at + 12);
      header.writeUInt32LE(entry.size, at + 16);
      header.writeUInt16LE(name.length, at + 20);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    fields(local, 6);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    fields(record, 8);
    record.writeUInt32LE(offset, 42);
    records.push(record, name);
    parts.push(local, name, entry.data);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(records);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  writeFileSync(file, Buffer.concat([...parts, directory, end]));
}
