/**
 * Whether a state-changing request comes from the reactor's own pages. Browsers send
 * `Sec-Fetch-Site` and, on every non-GET, `Origin`; a request carrying neither cannot
 * be told apart from a forged one, so it is refused.
 */
export function isSameOrigin(headers: { origin?: string; secFetchSite?: string }, ownOrigins: readonly string[]): boolean {
  if (headers.secFetchSite !== undefined) return headers.secFetchSite === 'same-origin';
  if (headers.origin === undefined || headers.origin === 'null') return false;
  return ownOrigins.includes(headers.origin.toLowerCase());
}

/**
 * Where to send the browser after login: only a path on this server, never `//host`
 * or a scheme, so the login cannot be turned into an open redirect.
 */
export function safeReturnPath(value: string | undefined, fallback: string): string {
  if (value === undefined || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || [...value].some((char) => char < ' ')) return fallback;
  return value;
}
