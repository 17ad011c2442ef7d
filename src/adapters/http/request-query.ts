/**
 * A request target's path and query, split at its first `?`: a `?` after it is part of a
 * value (RFC 3986), as in `returnTo=/find?q=x`.
 */
export function splitTarget(url: string): { path: string; query: URLSearchParams } {
  const start = url.indexOf('?');
  return start < 0 ? { path: url, query: new URLSearchParams() } : { path: url.slice(0, start), query: new URLSearchParams(url.slice(start + 1)) };
}
