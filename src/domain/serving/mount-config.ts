import { ConfigValidationError, UsageError } from '../errors.js';
import { normalizePrefix } from './mount-table.js';
import { isRecord } from '../package/documents.js';
import { unknownKeyIssues } from '../package/known-keys.js';
import { normalizeOrigin } from '../auth/same-origin.js';
import { isVerifyMode, VERIFY_MODES, type VerifyMode } from './verify-mode.js';

export interface MountEntry {
  path: string;
  source: string;
  store?: string;
  /** `false` locks the mount read-only, whatever its package says. */
  writable?: boolean;
  /** Origins whose pages may write to this mount (with CORS answers for them). */
  cors?: string[];
  /** When this mount's package is checked against its security.json; the reactor's `--verify` otherwise. */
  verify?: VerifyMode;
}

const KEYS = ['path', 'source', 'store', 'writable', 'cors', 'verify'];

/** The `--config` mounts file: `{mounts: [{path, source, store?, writable?, cors?, verify?}]}`. */
export function normalizeMountConfig(raw: unknown, file: string): MountEntry[] {
  if (!isRecord(raw) || !Array.isArray(raw.mounts)) throw new ConfigValidationError(file, ['must be an object with a "mounts" array']);
  const issues = unknownKeyIssues(raw, ['mounts'], '');
  const mounts: MountEntry[] = [];
  raw.mounts.forEach((item, index) => {
    if (!isRecord(item) || typeof item.path !== 'string' || !item.path.startsWith('/') || typeof item.source !== 'string' || item.source === '') {
      issues.push(`mounts[${index}]: needs "path" (starting with "/") and "source"`);
      return;
    }
    // A misspelt "writable": false would otherwise leave the mount writable without a word.
    const unknown = unknownKeyIssues(item, KEYS, `mounts[${index}]`);
    if (unknown.length > 0) {
      issues.push(...unknown);
      return;
    }
    try {
      normalizePrefix(item.path);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      issues.push(`mounts[${index}].path: ${error.message}`);
      return;
    }
    if (item.store !== undefined && typeof item.store !== 'string') {
      issues.push(`mounts[${index}].store: must be a directory path`);
      return;
    }
    if (item.writable !== undefined && typeof item.writable !== 'boolean') {
      issues.push(`mounts[${index}].writable: must be true or false`);
      return;
    }
    if (item.verify !== undefined && !isVerifyMode(item.verify)) {
      issues.push(`mounts[${index}].verify: must be ${VERIFY_MODES.map((mode) => `"${mode}"`).join(' or ')}`);
      return;
    }
    const cors = item.cors === undefined ? [] : Array.isArray(item.cors) ? item.cors.map((origin) => (typeof origin === 'string' ? normalizeOrigin(origin) : undefined)) : [undefined];
    if (cors.includes(undefined)) {
      issues.push(`mounts[${index}].cors: must be an array of origins like "https://app.example"`);
      return;
    }
    mounts.push({
      path: item.path,
      source: item.source,
      ...(typeof item.store === 'string' ? { store: item.store } : {}),
      ...(typeof item.writable === 'boolean' ? { writable: item.writable } : {}),
      ...(cors.length > 0 ? { cors: cors as string[] } : {}),
      ...(isVerifyMode(item.verify) ? { verify: item.verify } : {}),
    });
  });
  if (issues.length > 0) throw new ConfigValidationError(file, issues);
  return mounts;
}

/** `--mount PATH=SOURCE`. */
export function parseMountOption(option: string): MountEntry | undefined {
  const equals = option.indexOf('=');
  if (equals <= 0 || equals === option.length - 1) return undefined;
  const path = option.slice(0, equals);
  return path.startsWith('/') ? { path, source: option.slice(equals + 1) } : undefined;
}
