import { MountConflictError, UsageError } from '../errors.js';
import { unreachableSegment } from './reachable-path.js';

export interface MountMatch<T> {
  mount: T;
  prefix: string;
  /** The request path below the prefix, starting with "/". */
  path: string;
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

/** Mounts matched by the longest prefix on segment boundaries; one prefix, one mount. */
export class MountTable<T> {
  private readonly byPrefix = new Map<string, T>();
  private ordered: string[] = [];

  add(prefix: string, mount: T, describe: (mount: T) => string = String): void {
    const normalized = normalizePrefix(prefix);
    const existing = this.byPrefix.get(normalized);
    if (existing !== undefined) throw new MountConflictError(`two mounts claim the prefix ${normalized}: ${describe(existing)} and ${describe(mount)}`);
    this.byPrefix.set(normalized, mount);
    this.ordered = [...this.byPrefix.keys()].sort((a, b) => b.length - a.length);
  }

  match(path: string): MountMatch<T> | undefined {
    for (const prefix of this.ordered) {
      if (prefix === '/') return { mount: this.byPrefix.get(prefix)!, prefix, path };
      if (path.startsWith(prefix)) return { mount: this.byPrefix.get(prefix)!, prefix, path: path.slice(prefix.length - 1) };
      if (path === prefix.slice(0, -1)) return { mount: this.byPrefix.get(prefix)!, prefix, path: '/' };
    }
    return undefined;
  }

  entries(): Array<[string, T]> {
    return [...this.byPrefix.entries()];
  }
}
