/**
 * The reactor's `Cache-Control` for an answer that needed an identity: no shared cache may
 * keep it (RFC 9111 §3.5), so `public` becomes `private` and the other directives stay; a
 * value that says neither gets `private` (a session cookie, unlike `Authorization`, does
 * not keep a shared cache from storing an answer).
 */
export function privateCacheControl(value: string): string {
  const directives = value.split(',').map((directive) => directive.trim()).filter((directive) => directive !== '');
  if (directives.some((directive) => /^(private|no-store)\b/i.test(directive))) return value;
  return ['private', ...directives.filter((directive) => !/^public$/i.test(directive))].join(', ');
}
