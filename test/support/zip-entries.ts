import { execFileSync } from 'node:child_process';

/** Every entry of a ZIP by name, read with Python's zipfile: a reader that is not ours. */
export function readZipEntries(file: string): Record<string, Buffer> {
  const script = 'import sys, json, zipfile, base64\nz = zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({n: base64.b64encode(z.read(n)).decode() for n in z.namelist()}))';
  const encoded = JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as Record<string, string>;
  return Object.fromEntries(Object.entries(encoded).map(([name, data]) => [name, Buffer.from(data, 'base64')]));
}

/** Writes a ZIP of exactly these entries with Python's zipfile. */
export function writeZipEntries(file: string, entries: Record<string, Buffer>): void {
  const script = 'import sys, json, zipfile, base64\nentries = json.load(sys.stdin)\nwith zipfile.ZipFile(sys.argv[1], "w") as z:\n    for n, d in entries.items():\n        z.writestr(n, base64.b64decode(d))';
  execFileSync('python3', ['-c', script, file], { input: JSON.stringify(Object.fromEntries(Object.entries(entries).map(([name, data]) => [name, data.toString('base64')]))) });
}
