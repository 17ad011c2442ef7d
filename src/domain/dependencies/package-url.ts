/** `pkg://` names a package by GUID instead of by file. */
export const PACKAGE_URL_SCHEME = 'pkg://';

export function isPackageUrl(source: string): boolean {
  return source.startsWith(PACKAGE_URL_SCHEME);
}

/**
 * The GUIDs a `pkg://<guid>` source may mean, in the order to try them: GUIDs usually
 * use the pkg scheme themselves (`pkg://example.org/site` is the GUID), while a GUID of
 * another scheme is written after the prefix (`pkg://urn:uuid:...`).
 */
export function packageUrlGuids(source: string): string[] {
  const rest = source.slice(PACKAGE_URL_SCHEME.length);
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(rest) ? [source, rest] : [source];
}
