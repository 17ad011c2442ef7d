import { execFileSync } from 'node:child_process';

/** Every entry of a ZIP by name, read with Python's zipfile: a reader that is not ours. */
export function readZipEntries(file: string): Record<string, Buffer> {
  const script = 'import sys, json, zipfile, base64\nz = zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({n: base64.b64encode(z.read(n)).decode() for n in z.namelist()}))';
  const encoded = JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as Record<string, string>;
  return Object.fromEntries(Object.entries(encoded).map(([name, data]) => [name, Buffer.from(data, 'base64')]));
}

/** Writes a ZIP of exactly these entries with Python's zipfile: stored, or deflated when asked. */
export function writeZipEntries(file: string, entries: Record<string, Buffer>, { deflated = false } = {}): void {
  const script = `import sys, json, zipfile, base64\nentries = json.load(sys.stdin)\nwith zipfile.ZipFile(sys.argv[1], "w", zipfile.${deflated ? 'ZIP_DEFLATED' : 'ZIP_STORED'}) as z:\n    for n, d in entries.items():\n        z.writestr(n, base64.b64decode(d))`;
  execFileSync('python3', ['-c', script, file], { input: JSON.stringify(Object.fromEntries(Object.entries(entries).map(([name, data]) => [name, data.toString('base64')]))) });
}

/**
 * A copy of a ZIP with bytes inside one deflated entry's stream flipped, its directory
 * (sizes, CRC-32) left as it was: what a bad disk or a careless edit leaves, which only
 * inflating the entry can find.
 */
export function corruptDeflatedEntry(file: string, name: string, out: string): void {
  const script = [
    'import sys, struct, zipfile',
    'source, name, out = sys.argv[1:4]',
    'data = bytearray(open(source, "rb").read())',
    'info = zipfile.ZipFile(source).getinfo(name)',
    'assert info.compress_type == zipfile.ZIP_DEFLATED and info.compress_size > 16',
    'start = info.header_offset + 30 + sum(struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30]))',
    'for i in range(start + 4, start + info.compress_size - 4): data[i] ^= 0x5a',
    'open(out, "wb").write(data)',
  ].join('\n');
  execFileSync('python3', ['-c', script, file, name, out]);
}
