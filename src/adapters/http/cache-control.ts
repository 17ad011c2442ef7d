/**
 * The reactor's `Cache-Control` for an answer that needed an identity: no shared cache may
 * keep it (RFC 9111 §3.5), and the browser asks again before each use (`no-cache`: a 304
 * while the file is unchanged and the identity still admitted), so a page seen before a
 * logout is not shown from the browser's cache after it, as a fresh copy would be.
 * `private, no-cache` in place of the configured value, unless that says `private` or
 * `no-store` itself: the operator's own choice for such answers.
 */
export function privateCacheControl(value: string): string {
  const directives = value.split(',').map((directive) => directive.trim());
  if (directives.some((directive) => /^(private|no-store)\b/i.test(directive))) return value;
  return 'private, no-cache';
}
