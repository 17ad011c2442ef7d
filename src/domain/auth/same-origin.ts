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

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request is a write a web page of another site made, whatever credential it
 * carries (browsers send cached basic credentials and cookies on their own, and a reactor
 * on a user's machine needs none): an `Origin` that is neither the reactor's own nor an
 * allowed one, `Origin: null` (sandboxed pages, files), or `Sec-Fetch-Site` of another
 * site. A request with neither header did not come from a browser page (curl, a script):
 * it is not cross-site.
 */
export function isCrossSiteWrite(method: string, headers: { origin?: string; secFetchSite?: string }, ownOrigins: readonly string[], allowed: readonly string[]): boolean {
  if (SAFE_METHODS.has(method)) return false;
  const origin = headers.origin?.toLowerCase();
  if (origin !== undefined) return origin === 'null' || !(ownOrigins.includes(origin) || allowed.includes(origin));
  return headers.secFetchSite === 'cross-site' || headers.secFetchSite === 'same-site';
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** The names isOwnHost accepts besides addresses and localhost: the `--host` address, and deploy.json baseUrl's host. */
export function reactorNames(host: string | undefined, baseUrl: string | undefined): string[] {
  return [host, baseUrl === undefined ? undefined : new URL(baseUrl).hostname].filter((name): name is string => name !== undefined && name !== '').map((name) => name.toLowerCase());
}

/**
 * Whether a `Host` header names the reactor itself, so that a page served under it is one
 * of its own: an IP address (bracketed for IPv6), `localhost` or a name below it (which
 * browsers resolve to this machine only), or one of `names` (the address given to `--host`,
 * deploy.json `baseUrl`'s). Any other DNS name may be an attacker's, pointed at this
 * machine after its page loaded (DNS rebinding): that page is another site's.
 */
export function isOwnHost(host: string, names: readonly string[]): boolean {
  const lower = host.toLowerCase();
  const name = lower.startsWith('[') ? lower.slice(0, lower.indexOf(']') + 1) : lower.replace(/:\d*$/, '');
  if (name === '') return false;
  if (name.startsWith('[') || IPV4.test(name) || name === 'localhost' || name.endsWith('.localhost')) return true;
  return names.includes(name);
}

/** `https://App.example:8443/` -> `https://app.example:8443`; undefined for what is not an origin (a path, another scheme). */
export function normalizeOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * The longest path a login returns to. It travels in the login's state cookie, base64 in a
 * signed JSON beside the PKCE verifier and the redirect URI, and a browser drops a cookie
 * past 4 KB without a word: the callback would then find no login started.
 */
export const MAX_RETURN_PATH = 2000;

/**
 * Where to send the browser after login: only a path on this server, never `//host`
 * or a scheme, so the login cannot be turned into an open redirect. What a Location
 * header cannot carry as it is (`/café`, decoded from the query) is percent-encoded.
 * A longer one than MAX_RETURN_PATH once encoded gives way to the fallback.
 */
export function safeReturnPath(value: string | undefined, fallback: string): string {
  if (value === undefined || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || [...value].some((char) => char < ' ')) return fallback;
  let path: string;
  try {
    path = value.replace(/[^\x21-\x7e]/gu, (character) => encodeURIComponent(character));
  } catch {
    // A lone surrogate has no UTF-8 to encode.
    return fallback;
  }
  return path.length > MAX_RETURN_PATH ? fallback : path;
}
