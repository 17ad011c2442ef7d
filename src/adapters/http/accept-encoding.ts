/**
 * Whether an `Accept-Encoding` header (RFC 9110 §12.5.3) accepts gzip: `gzip` (or its
 * alias `x-gzip`) with a non-zero weight, or else `*` with one. An explicit `gzip;q=0`
 * refuses gzip whatever `*` says; no header at all asks for identity.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  // The common headers of browsers and tools, answered without parsing.
  if (header === 'gzip, deflate, br, zstd' || header === 'gzip, deflate, br' || header === 'gzip, deflate' || header === 'gzip') return true;
  let star: boolean | undefined;
  for (const part of header.split(',')) {
    const [coding = '', ...parameters] = part.split(';');
    const name = coding.trim().toLowerCase();
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') continue;
    const accepted = weight(parameters) > 0;
    if (name === '*') star = accepted;
    else return accepted;
  }
  return star === true;
}

/** The `q` parameter, 1 when absent; a malformed one counts as 0 (not acceptable). */
function weight(parameters: readonly string[]): number {
  for (const parameter of parameters) {
    const [key = '', value = ''] = parameter.split('=');
    if (key.trim().toLowerCase() !== 'q') continue;
    const text = value.trim();
    return /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text) ? Number(text) : 0;
  }
  return 1;
}
