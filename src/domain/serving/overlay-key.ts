/**
 * The directory (or row key) of one mount's overlay, as DECISIONS.md names it:
 * `root~example-site` for `/`, `v2~example-site` for `/v2/`. It names the mount path and
 * the package, so two mounts never share an overlay. Segments are percent-encoded with
 * `~` escaped, and a segment spelled `root` is escaped too, so no two mounts share a key.
 */
export function overlayKey(mountPath: string, packageName: string): string {
  const segments = mountPath.split('/').filter((segment) => segment !== '').map(encodeSegment);
  return `${segments.length === 0 ? 'root' : segments.join('~')}~${packageName}`;
}

function encodeSegment(segment: string): string {
  const encoded = encodeURIComponent(segment).replace(/~/g, '%7E');
  return encoded === 'root' ? '%72oot' : encoded;
}

/**
 * The mount an overlay key names; a key of the older layout (a package name alone) belongs
 * to `/`. Undefined for a name no key has (malformed percent-encoding): not an overlay.
 */
export function overlayMountOf(key: string): { path: string; packageName: string } | undefined {
  const parts = key.split('~');
  const packageName = parts.pop()!;
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'root')) return { path: '/', packageName };
  try {
    return { path: `/${parts.map(decodeURIComponent).join('/')}/`, packageName };
  } catch {
    return undefined;
  }
}
