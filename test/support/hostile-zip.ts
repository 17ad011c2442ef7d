import { execFileSync } from 'node:child_process';

/**
 * Writes a ZIP with exactly the entry names given, duplicates and unsafe names
 * included, through Python's zipfile (our own writer refuses to make such files).
 */
export function writeRawZip(file: string, entries: Array<[name: string, content: string]>): void {
  const script = [
    'import sys, json, zipfile, warnings',
    'warnings.simplefilter("ignore")',
    'entries = json.loads(sys.argv[2])',
    'with zipfile.ZipFile(sys.argv[1], "w") as z:',
    '    for name, content in entries:',
    '        z.writestr(zipfile.ZipInfo(name), content)',
  ].join('\n');
  execFileSync('python3', ['-c', script, file, JSON.stringify(entries)]);
}
