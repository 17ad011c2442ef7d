import { InvalidRegistryError } from '../errors.js';

/** Where a registry is: a directory (read-write) or a static base URL (read-only). */
export type RegistryReference =
  | { kind: 'directory'; path: string }
  | {
      kind: 'url';
      /** The base URL without credentials, ending in "/". */
      base: string;
      /** Basic credentials from the URL: sent, never printed. */
      credentials?: { username: string; password: string };
      /** The reference as it may be shown: credentials replaced by `***`. */
      display: string;
    };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Plain http is allowed only where nobody else can read or change the bytes. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * `--registry` / `PKG_REGISTRY`: an https URL (http only for loopback hosts), a file:
 * URL or a directory path. Any other scheme, or a URL that does not parse, is an
 * InvalidRegistryError whose message never repeats the credentials.
 */
export function parseRegistryReference(reference: string): RegistryReference {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(reference)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'directory', path: reference };
  const display = redactCredentials(reference);
  let url: URL;
  try {
    url = new URL(reference);
  } catch {
    throw new InvalidRegistryError(`registry ${display} is not a valid URL`);
  }
  if (scheme === 'file') return { kind: 'directory', path: decodeURIComponent(url.pathname) };
  if (scheme !== 'https' && scheme !== 'http') throw new InvalidRegistryError(`registry ${display}: only https URLs (http for loopback hosts) and directories are registries`);
  if (scheme === 'http' && !isLoopbackHost(url.hostname)) throw new InvalidRegistryError(`registry ${display}: plain http is allowed only for loopback hosts; use https`);
  if (url.search !== '' || url.hash !== '') throw new InvalidRegistryError(`registry ${display}: a registry base URL has no query or fragment`);
  const credentials = url.username !== '' || url.password !== '' ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : undefined;
  url.username = '';
  url.password = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return { kind: 'url', base: url.toString(), ...(credentials ? { credentials } : {}), display: credentials ? redactCredentials(reference) : url.toString() };
}

/**
 * `https://user:secret@host/x?token=t` -> `https://***@host/x?token=***`: user info and
 * query values (where tokens travel) never leave the process; names stay, so the
 * reader still sees which parameter was given.
 */
export function redactCredentials(reference: string): string {
  return reference.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S*/, redactUrl);
}

/** Replaces every URL inside a message (a library's error text, say) by its redacted form. */
export function redactMessage(message: string): string {
  return message.replace(/\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>]*/g, redactUrl);
}

function redactUrl(url: string): string {
  return url.replace(/^([^:]+:\/\/)[^/?#@\s]*@/, '$1***@').replace(/([?&][^=&#]*)=[^&#]*/g, '$1=***');
}
