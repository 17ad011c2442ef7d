/** Package-relative POSIX paths: the names of files inside a package. */

export const METADATA_FILE = 'metadata.json';
export const MANIFEST_FILE = 'manifest.json';
export const ROUTES_FILE = 'routes.json';
export const STORAGE_FILE = 'storage.json';
export const SECURITY_FILE = 'security.json';
export const AUTHENTICATION_FILE = 'authentication.json';
export const SIGNATURE_FILE = 'signature.sig';
export const CONTENT_DIR = 'content/';
export const TOMBSTONES_FILE = '.pkg-tombstones';
/** The configuration documents at a package's root, read whole at every load: in the order a load reads them. */
export const CONFIGURATION_FILES: readonly string[] = [SECURITY_FILE, METADATA_FILE, STORAGE_FILE, AUTHENTICATION_FILE, MANIFEST_FILE, ROUTES_FILE];
/** Marks an overlay file still being written: never content, so never a name a client may write. */
export const PARTIAL_SUFFIX = '.pkg-partial';

/** Signing artifacts: pack drops them because signing is a post-pack step. */
export function isSigningArtifact(path: string): boolean {
  return path === SIGNATURE_FILE || /^signature\.pub\.[^/]+$/.test(path);
}

const PARENT_SEGMENT = /(?:^|\/)\.\.(?:\/|$)/;

const CURRENT_SEGMENT = /(?:^|\/)\.(?:\/|$)/;

/**
 * Names that pass every check of unsafePathReason, in one regex: non-empty segments that
 * start with no dot, no NUL or backslash, no drive letter, at most a trailing slash. A
 * package of 10,000 entries is opened without five tests a name (5 ms to 2); a name it
 * does not match (a dotfile, say) goes through the checks, which decide and say why.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it must not match
const PLAINLY_SAFE = /^(?![A-Za-z]:)[^\0-\x1f\x7f\\/.][^\0-\x1f\x7f\\/]*(?:\/[^\0-\x1f\x7f\\/.][^\0-\x1f\x7f\\/]*)*\/?$/;

/** The longest name of one file or folder, in UTF-8 bytes: what most file systems hold (NAME_MAX). */
export const MAX_NAME_BYTES = 255;
/** The longest path a package may hold, in UTF-8 bytes: well within PATH_MAX once below any folder it is unpacked into. */
export const MAX_PATH_BYTES = 1024;
/** Up to this many UTF-16 units, no name can pass MAX_NAME_BYTES (three bytes a unit at most): the regex alone decides. */
const SURELY_SHORT = Math.floor(MAX_NAME_BYTES / 3);

/**
 * Why a name cannot be a package entry, or undefined when it is safe: it must stay
 * below its root (no absolute path, drive letter, `..` segment, backslash or NUL) and
 * be the one spelling of its path (no `.` or empty segment), so every reader (validate,
 * the reactor, unpack, sign, push) sees the same files; and a file system must be able to
 * hold it, so unpack can write it.
 */
export function unsafePathReason(name: string): string | undefined {
  if (name.length <= SURELY_SHORT && PLAINLY_SAFE.test(name)) return undefined;
  if (name.length === 0) return 'empty name';
  if (name.includes('\0')) return 'contains a NUL byte';
  // A line break or an ESC in a name would reach logs and terminals; no file system that unpacks on Windows takes one.
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (/[\x01-\x1f\x7f]/.test(name)) return 'contains a control character';
  if (name.includes('\\')) return 'contains a backslash';
  if (name.startsWith('/')) return 'absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'drive letter';
  if (PARENT_SEGMENT.test(name)) return '".." segment';
  if (CURRENT_SEGMENT.test(name)) return '"." segment: another spelling of a path';
  if (name.includes('//')) return 'empty segment: another spelling of a path';
  if (utf8Length(name) > MAX_PATH_BYTES) return `a path takes at most ${MAX_PATH_BYTES} bytes`;
  if (name.split('/').some((segment) => utf8Length(segment) > MAX_NAME_BYTES)) return `a file or folder name takes at most ${MAX_NAME_BYTES} bytes, what file systems hold`;
  return undefined;
}

const utf8 = new TextEncoder();

/** A name's length in UTF-8 bytes: ASCII is its own. */
export function utf8Length(text: string): number {
  return isAscii(text) ? text.length : utf8.encode(text).length;
}

const NON_ASCII = /[^\0-\x7f]/;

/** Whether a name is all ASCII: then it is its own NFC form, and its UTF-8 length its length. */
export function isAscii(name: string): boolean {
  return !NON_ASCII.test(name);
}

/** NFC form; ASCII is its own, and checking for it is cheaper than normalizing. */
export function nfc(name: string): string {
  return NON_ASCII.test(name) ? name.normalize('NFC') : name;
}

/** Which Unicode form a name is spelled in, for messages about two names that look alike on screen and are not. */
export function unicodeForm(name: string): string {
  if (name === nfc(name)) return 'composed (NFC)';
  return name === name.normalize('NFD') ? 'decomposed (NFD)' : 'partly composed';
}

/**
 * Names that are safe one by one but not together: two spellings of one path after
 * Unicode normalization (NFC), or a file that another entry treats as a directory.
 * Exact duplicates are the caller's (an integrity matter: two records, two contents).
 * `isName`: whether a name is one of `names`, when the caller has that lookup already
 * (an archive's index): a set of a large package's 10,000 names is not built again.
 */
export function entryNamesProblem(names: readonly string[], isName?: (name: string) => boolean): { name: string; reason: string } | undefined {
  const fileAt = names.some((name) => NON_ASCII.test(name)) ? spellings(names) : asciiFiles(names, isName);
  if (typeof fileAt !== 'function') return fileAt;
  // Most entries share their folders: each folder is looked up once, and a name whose
  // folder was seen skips its ancestors too, which were looked up with it. Sorted names
  // come folder by folder: one in the folder of the name before needs no look-up at all.
  const folders = new Set<string>();
  let previous = '';
  for (const name of names) {
    const last = name.lastIndexOf('/');
    if (last <= 0 || (last === previous.length && name.startsWith(previous))) continue;
    previous = name.slice(0, last);
    if (folders.has(previous)) continue;
    for (let slash = name.indexOf('/'); slash > 0; slash = name.indexOf('/', slash + 1)) {
      const folder = name.slice(0, slash);
      if (folders.has(folder)) continue;
      folders.add(folder);
      const file = fileAt(nfc(folder));
      if (file !== undefined) return { name, reason: `lies below "${file}", which is a file` };
    }
  }
  return undefined;
}

/** The file each NFC form names, or the first name that spells another's form again. */
function spellings(names: readonly string[]): ((normal: string) => string | undefined) | { name: string; reason: string } {
  const byNormal = new Map<string, string>();
  for (const name of names) {
    const normal = nfc(name);
    const seen = byNormal.get(normal);
    if (seen !== undefined && seen !== name) return { name, reason: `is another spelling of "${seen}" (the same name once Unicode-normalized: ${unicodeForm(name)} here, ${unicodeForm(seen)} there)` };
    byNormal.set(normal, name);
  }
  return (normal) => byNormal.get(normal);
}

/** ASCII names are their own NFC forms: none spells another, and each names its own file. */
function asciiFiles(names: readonly string[], isName?: (name: string) => boolean): (normal: string) => string | undefined {
  if (isName) return (normal) => (isName(normal) ? normal : undefined);
  const files = new Set(names);
  return (normal) => (files.has(normal) ? normal : undefined);
}

/**
 * Compares by Unicode code point, so the order matches other implementations' sorted().
 * UTF-16 code units already order like code points except where a surrogate meets a
 * unit from U+E000 to U+FFFF, so only that case is corrected.
 */
export function comparePaths(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

const SURROGATE = /[\ud800-\udfff]/;

/** Paths in comparePaths order. */
export function sortPaths(paths: Iterable<string>): string[] {
  return sortByPath([...paths], (path) => path);
}

/**
 * Sorts `items` in place by their paths in comparePaths order. Without a surrogate among
 * them, UTF-16 order is that order, and the engine's own string comparison does the
 * work: sorting 10,000 entries at start-up went from 10 ms to about 1.
 */
export function sortByPath<T>(items: T[], pathOf: (item: T) => string): T[] {
  let sorted = true;
  let surrogate = false;
  for (let i = 0, previous = ''; i < items.length && !surrogate; i++) {
    const path = pathOf(items[i]!);
    surrogate = SURROGATE.test(path);
    if (path < previous) sorted = false;
    previous = path;
  }
  if (surrogate) return items.sort((a, b) => comparePaths(pathOf(a), pathOf(b)));
  // What a packer wrote (its directory, security.json, the manifest) comes in order already.
  if (sorted) return items;
  return items.sort((a, b) => {
    const x = pathOf(a);
    const y = pathOf(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

export function isContentPath(path: string): boolean {
  return path.startsWith(CONTENT_DIR) && path.length > CONTENT_DIR.length;
}

/** `content/docs/a.html` -> `/docs/a.html`. */
export function urlPathOfContent(path: string): string {
  return '/' + path.slice(CONTENT_DIR.length);
}

export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}
