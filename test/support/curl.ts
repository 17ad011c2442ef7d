import { spawnSync } from 'node:child_process';

/** Whether the machine has curl: tests that run it are skipped without. */
export const HAS_CURL = spawnSync('curl', ['--version']).status === 0;

/** What curl received: its headers (lower-cased) and its body as curl hands it over (decoded under --compressed). */
export function curlGet(url: string, ...flags: string[]): { status: number | null; headers: string; body: Buffer } {
  const result = spawnSync('curl', ['-s', '-D', '-', ...flags, url], { encoding: 'buffer' });
  const split = result.stdout.indexOf('\r\n\r\n');
  return { status: result.status, headers: result.stdout.subarray(0, split).toString().toLowerCase(), body: result.stdout.subarray(split + 4) };
}
