import { MountConflictError, UsageError } from '../errors.js';
import { isAscii, nfc } from '../package/package-paths.js';
import { unreachableSegment } from './reachable-path.js';

export interface MountMatch<T> {
  mount: T;
  prefix: string;
  /** The request path below the prefix, starting with "/". */
  path: string;
  /** The request named the mount's root without its trailing slash (`/docs` for `/docs/`). */
  bare?: true;
}

/**
 * Normalizes a mount point to `/` or `/a/b/`. Prefixes are matched against decoded request
 * paths (normalizeRequestPath), which never hold an empty or dot segment, a backslash or a
 * NUL: a prefix with one could never be reached, and is refused rather than mounted; so
 * is a percent-escape, which a decoded path holds only when it was sent double-encoded.
 */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '/';
  const problem = unreachableSegment(trimmed);
  if (problem) throw new UsageError(`mount path ${prefix}: ${problem}, which no request can reach`);
  // Request paths are matched decoded: `/caf%C3%A9` would be reached only as `/caf%25C3%25A9`.
  if (trimmed.includes('%')) throw new UsageError(`mount path ${prefix}: a "%"; a mount path is written decoded (/café, not /caf%C3%A9)`);
  if (encodeURIComponent(trimmed).length > MAX_ENCODED_PREFIX) throw new UsageError(`mount path ${prefix.slice(0, 64)}…: at most ${MAX_ENCODED_PREFIX} characters once percent-encoded, since it names its overlay's folder`);
  return `/${trimmed}/`;
}

/** With a package name (at most 100 characters), a mount path names its overlay's folder (overlayKey): the two fit in a file name. */
const MAX_ENCODED_PREFIX = 128;

/**
 * Mounts matched by the longest prefix on segment boundaries; one prefix, one mount. A
 * prefix is one name in either Unicode spelling (`/café/` typed composed, NFC, or
 * decomposed, NFD, as a link a macOS tool wrote from a folder name): a browser sends a
 * link's characters as written, so the two are matched alike and cannot name two mounts.
 */
export class MountTable<T> {
  private readonly byPrefix = new Map<string, T>();
  /** Longest first, each with its NFC form and its count of segments (for an ASCII one, none: it has one spelling). */
  private ordered: Array<{ prefix: string; normal?: string; segments: number }> = [];

  add(prefix: string, mount: T, describe: (mount: T) => string = String): void {
    const normalized = normalizePrefix(prefix);
    const same = this.ordered.find((known) => (known.normal ?? known.prefix) === nfc(normalized))?.prefix;
    const existing = same === undefined ? undefined : this.byPrefix.get(same);
    if (existing !== undefined) throw new MountConflictError(`two mounts claim the prefix ${normalized}${same === normalized ? '' : ` (${same} in another Unicode spelling)`}: ${describe(existing)} and ${describe(mount)}`);
    this.byPrefix.set(normalized, mount);
    this.ordered = [...this.byPrefix.keys()].sort((a, b) => b.length - a.length).map((known) => ({ prefix: known, ...(isAscii(known) ? {} : { normal: nfc(known) }), segments: known.split('/').length - 2 }));
  }

  match(path: string): MountMatch<T> | undefined {
    // Only a path that is not ASCII can spell a prefix that is not ASCII another way.
    const normal = isAscii(path) ? undefined : nfc(path);
    for (const { prefix, normal: normalPrefix, segments } of this.ordered) {
      if (prefix === '/') return { mount: this.byPrefix.get(prefix)!, prefix, path };
      if (path.startsWith(prefix)) return { mount: this.byPrefix.get(prefix)!, prefix, path: path.slice(prefix.length - 1) };
      if (path === prefix.slice(0, -1)) return { mount: this.byPrefix.get(prefix)!, prefix, path: '/', bare: true };
      if (normal === undefined || normalPrefix === undefined) continue;
      if (normal.startsWith(normalPrefix)) return { mount: this.byPrefix.get(prefix)!, prefix, path: path.slice(slashAfter(path, segments)) };
      if (normal === normalPrefix.slice(0, -1)) return { mount: this.byPrefix.get(prefix)!, prefix, path: '/', bare: true };
    }
    return undefined;
  }

  entries(): Array<[string, T]> {
    return [...this.byPrefix.entries()];
  }
}

/** Where the rest of a path begins after its first `segments` segments: at the slash that follows them. */
function slashAfter(path: string, segments: number): number {
  let slash = 0;
  for (let seen = 0; seen < segments; seen++) slash = path.indexOf('/', slash + 1);
  return slash;
}
