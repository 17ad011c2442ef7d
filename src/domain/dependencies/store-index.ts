import { ConfigValidationError } from '../errors.js';
import { defineOwn, isRecord } from '../package/documents.js';
import { parsePackageFileName } from './package-file-name.js';

export const STORE_INDEX_FILE = 'index.json';

/** A store's `index.json`: GUID -> `<name>-<version>.cap`, a file in the store directory. */
export type StoreIndex = Record<string, string>;

export function parseStoreIndex(raw: unknown, where: string): StoreIndex {
  if (!isRecord(raw)) throw new ConfigValidationError(where, ['must be an object of GUID to <name>-<version>.cap']);
  const issues: string[] = [];
  const index: StoreIndex = {};
  for (const [guid, file] of Object.entries(raw)) {
    if (typeof file !== 'string' || file.includes('/') || !parsePackageFileName(file)) issues.push(`${JSON.stringify(guid)}: must name a <name>-<version>.cap file of the store`);
    else defineOwn(index, guid, file);
  }
  if (issues.length > 0) throw new ConfigValidationError(where, issues);
  return index;
}
