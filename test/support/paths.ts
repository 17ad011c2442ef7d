import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const EXAMPLE_SITE = join(ROOT, 'examples/site');
export const CLI = join(ROOT, 'dist/pkg.js');

/** A fresh temporary directory, removed by the returned cleanup. */
export function temporaryDirectory(prefix = 'cap-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
