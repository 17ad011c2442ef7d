export type RequestPath = { ok: true; path: string } | { ok: false; status: 400 | 414; reason: string };

export const MAX_PATH_LENGTH = 4096;
const PLAIN = /^\/[A-Za-z0-9\-._~/]{0,4000}$/;

/**
 * Decodes a request path into the form routes use. Whatever spelling a client uses,
 * a path that would step outside its root (`..`, `%2e%2e`, an encoded `/`, a
 * backslash, a NUL byte) is refused here, before any lookup: 400, or 414 when overlong.
 */
export function normalizeRequestPath(raw: string): RequestPath {
  // Most paths need no decoding: only unreserved characters, no empty or dot segments.
  if (PLAIN.test(raw) && !raw.includes('//') && !raw.includes('/.')) return { ok: true, path: raw };
  if (raw.length > MAX_PATH_LENGTH) return { ok: false, status: 414, reason: 'request path too long' };
  if (!raw.startsWith('/')) return { ok: false, status: 400, reason: 'request path must start with "/"' };
  const segments: string[] = [];
  const parts = raw.split('/');
  for (let i = 1; i < parts.length; i++) {
    let segment: string;
    try {
      segment = decodeURIComponent(parts[i]!);
    } catch {
      return { ok: false, status: 400, reason: 'malformed percent-encoding in request path' };
    }
    if (segment.includes('/')) return { ok: false, status: 400, reason: 'encoded "/" in request path' };
    if (segment.includes('\\')) return { ok: false, status: 400, reason: 'backslash in request path' };
    if (segment.includes('\0')) return { ok: false, status: 400, reason: 'NUL byte in request path' };
    if (segment === '..' || segment === '.') return { ok: false, status: 400, reason: 'dot segment in request path' };
    if (segment === '' && i < parts.length - 1) continue;
    segments.push(segment);
  }
  return { ok: true, path: '/' + segments.join('/') };
}

/**
 * A decoded path (a route's, a mount's) as a URL spells it: each segment percent-encoded,
 * so a space, `#`, `?`, `%` or a letter beyond ASCII reaches the server as that character,
 * and the result is ASCII (a Location header, a link printed for a terminal). Throws
 * URIError on a lone surrogate, which has no UTF-8 spelling.
 */
export function urlPathOf(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
