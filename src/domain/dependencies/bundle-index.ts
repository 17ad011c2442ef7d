import { ConfigValidationError } from '../errors.js';
import { defineOwn, isRecord } from '../package/documents.js';
import { SEMVER } from '../package/field-rules.js';
import { parsePackageFileName } from './package-file-name.js';
import { SHA256_HEX } from './registry-index.js';

export const BUNDLE_DIR = 'packages/';
export const BUNDLE_INDEX_FILE = 'packages/index.json';

/** One embedded dependency: `packages/<name>-<version>.cap`, its version and SHA-256. */
export interface BundledPackage {
  file: string;
  version: string;
  sha256: string;
}

/** `packages/index.json`: embedded dependencies keyed by GUID. */
export type BundleIndex = Record<string, BundledPackage>;

export function parseBundleIndex(raw: unknown): BundleIndex {
  if (!isRecord(raw)) throw new ConfigValidationError(BUNDLE_INDEX_FILE, ['must be an object keyed by dependency GUID']);
  const issues: string[] = [];
  const index: BundleIndex = {};
  for (const [guid, value] of Object.entries(raw)) {
    const at = JSON.stringify(guid);
    if (!isRecord(value) || typeof value.file !== 'string' || typeof value.version !== 'string' || typeof value.sha256 !== 'string') {
      issues.push(`${at}: needs "file", "version" and "sha256" strings`);
      continue;
    }
    const named = parsePackageFileName(value.file.slice(BUNDLE_DIR.length));
    if (!value.file.startsWith(BUNDLE_DIR) || value.file.slice(BUNDLE_DIR.length).includes('/') || !named) issues.push(`${at}: "file" must be ${BUNDLE_DIR}<name>-<version>.cap`);
    else if (!SEMVER.test(value.version) || named.version !== value.version) issues.push(`${at}: "version" must be the semantic version the file name carries`);
    else if (!SHA256_HEX.test(value.sha256)) issues.push(`${at}: "sha256" must be 64 hex digits`);
    else defineOwn(index, guid, { file: value.file, version: value.version, sha256: value.sha256.toLowerCase() });
  }
  if (issues.length > 0) throw new ConfigValidationError(BUNDLE_INDEX_FILE, issues);
  return index;
}
