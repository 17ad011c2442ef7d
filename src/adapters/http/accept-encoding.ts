/** Codings the reactor sends besides identity. */
type Coding = 'br' | 'gzip';

/**
 * Whether an `Accept-Encoding` header (RFC 9110 §12.5.3) accepts gzip: `gzip` (or its
 * alias `x-gzip`) with a non-zero weight, or else `*` with one. An explicit `gzip;q=0`
 * refuses gzip whatever `*` says; no header at all asks for identity.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  // The common headers of browsers and tools, answered without parsing.
  if (header === 'gzip, deflate, br, zstd' || header === 'gzip, deflate, br' || header === 'gzip, deflate' || header === 'gzip') return true;
  return weightOf(weightsOf(header), 'gzip') > 0;
}

/**
 * The coding to answer in, of those the reactor keeps compressed (brotli and gzip): the
 * accepted one with the higher weight, brotli on a tie (it is smaller); undefined for
 * identity. Same rules as `acceptsGzip`.
 */
export function preferredEncoding(header: string | undefined): Coding | undefined {
  if (header === undefined || header === '') return undefined;
  const weights = weightsOf(header);
  const br = weightOf(weights, 'br');
  const gzip = weightOf(weights, 'gzip');
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

/** A coding's weight: its own, else that of `*`, else 0 (not acceptable). */
function weightOf(weights: ReadonlyMap<string, number>, coding: Coding): number {
  return weights.get(coding) ?? weights.get('*') ?? 0;
}

/** Each named coding's weight; a coding named twice (`gzip` and `x-gzip` are one) keeps the lower, so a refusal is never overridden. */
function weightsOf(header: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [coding = '', ...parameters] = part.split(';');
    const lower = coding.trim().toLowerCase();
    const name = lower === 'x-gzip' ? 'gzip' : lower;
    if (name === '') continue;
    weights.set(name, Math.min(weights.get(name) ?? 1, weight(parameters)));
  }
  return weights;
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
