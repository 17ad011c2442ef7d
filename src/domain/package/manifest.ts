import { ConfigValidationError } from '../errors.js';
import { isRecord } from './documents.js';
import { MANIFEST_FILE, isContentPath, nfc, sortPaths } from './package-paths.js';

export type Visibility = 'exported' | 'private';

export interface ManifestEntry {
  type: string;
  visibility: Visibility;
  version?: string;
}

/** Keyed by package-relative resource path. */
export type Manifest = Record<string, ManifestEntry>;

/**
 * Reads manifest.json in any accepted form into the canonical map: the map itself,
 * the map wrapped as `{resources}`, or the legacy `{content: [{file, mime}]}` list.
 * Unknown entry fields are dropped, so writers emit only canonical fields.
 */
export function normalizeManifest(raw: unknown): Manifest {
  if (!isRecord(raw)) throw new ConfigValidationError(MANIFEST_FILE, ['must be a JSON object']);
  if (Array.isArray(raw.content)) return fromLegacyList(raw.content);
  const map = isRecord(raw.resources) && Object.keys(raw).length === 1 ? raw.resources : raw;
  const written = Object.keys(map);
  const paths = sortPaths(written);
  // What a packer wrote is canonical already: then the parsed map is the answer, and no
  // second map of a large package's 10,000 entries is made at every start.
  if (paths.every((path, i) => path === written[i] && path !== '__proto__' && isCanonicalEntry(map[path]))) return map as Manifest;
  const issues: string[] = [];
  const manifest: Manifest = {};
  for (const path of paths) {
    const value = map[path];
    if (!isRecord(value)) {
      issues.push(`${path}: entry must be an object with "type" and "visibility"`);
      continue;
    }
    const entry = canonicalEntry(path, value.type, value.visibility ?? 'exported', value.version, issues);
    if (entry) manifest[path] = entry;
  }
  if (issues.length > 0) throw new ConfigValidationError(MANIFEST_FILE, issues);
  return manifest;
}

const CANONICAL_FIELDS = ['type', 'visibility', 'version'];

/** An entry written as its canonical form is: a media type, the visibility and a version if any, nothing else, in that order. */
function isCanonicalEntry(value: unknown): boolean {
  if (!isRecord(value) || !isMediaType(value.type) || !isVisibility(value.visibility)) return false;
  let fields = 0;
  for (const field in value) if (field !== CANONICAL_FIELDS[fields++]) return false;
  return fields === 2 || (fields === 3 && typeof value.version === 'string');
}

function fromLegacyList(list: unknown[]): Manifest {
  const issues: string[] = [];
  const manifest: Manifest = {};
  list.forEach((item, index) => {
    if (!isRecord(item) || typeof item.file !== 'string') {
      issues.push(`content[${index}]: a legacy entry needs "file"`);
      return;
    }
    const entry = canonicalEntry(item.file, item.mime ?? item.type, item.visibility ?? 'exported', item.version, issues);
    if (entry) manifest[item.file] = entry;
  });
  if (issues.length > 0) throw new ConfigValidationError(MANIFEST_FILE, issues);
  return sortManifest(manifest);
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\t\\x20-\\x7e])*"';
/**
 * A media type as RFC 9110 spells one (`text/html; charset=utf-8`), the whole value: it is
 * sent as the file's Content-Type, and a stranger's `text/plain€` would fail every answer.
 */
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;(?:[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))?)*[ \\t]*$`);

const isMediaType = (type: unknown): type is string => typeof type === 'string' && MEDIA_TYPE.test(type);
const isVisibility = (visibility: unknown): visibility is Visibility => visibility === 'exported' || visibility === 'private';

function canonicalEntry(path: string, type: unknown, visibility: unknown, version: unknown, issues: string[]): ManifestEntry | undefined {
  const before = issues.length;
  if (!isMediaType(type)) issues.push(`${path}: "type" must be a MIME type string (like text/html; charset=utf-8)`);
  if (!isVisibility(visibility)) issues.push(`${path}: "visibility" must be "exported" or "private"`);
  if (version !== undefined && typeof version !== 'string') issues.push(`${path}: "version" must be a string`);
  if (issues.length > before) return undefined;
  const entry: ManifestEntry = { type: type as string, visibility: visibility as Visibility };
  if (typeof version === 'string') entry.version = version;
  return entry;
}

/**
 * Whether the manifest keeps a package file private, the name matched in either Unicode
 * spelling: the reactor serves a file at either, so a file named decomposed (NFD, as
 * macOS names it) under an entry typed composed (NFC) is the file that entry hides.
 */
export function isPrivateIn(manifest: Manifest): (path: string) => boolean {
  const hidden = new Set(Object.keys(manifest).filter((path) => manifest[path]!.visibility === 'private').map(nfc));
  return (path) => hidden.has(nfc(path));
}

/** Generation scans `content/` only, dotfiles included, sorted, every entry exported. */
export function generateManifest(files: Iterable<string>, typeOf: (path: string) => string): Manifest {
  const manifest: Manifest = {};
  for (const path of sortPaths([...files].filter(isContentPath))) {
    manifest[path] = { type: typeOf(path), visibility: 'exported' };
  }
  return manifest;
}

export function sortManifest(manifest: Manifest): Manifest {
  const sorted: Manifest = {};
  for (const path of sortPaths(Object.keys(manifest))) sorted[path] = manifest[path]!;
  return sorted;
}
