import type { ContentCoding as Coding } from '../../application/ports/compressor.js';

const BOTH: readonly Coding[] = ['br', 'gzip'];
const GZIP: readonly Coding[] = ['gzip'];
const BROTLI: readonly Coding[] = ['br'];
const NONE: readonly Coding[] = [];

/**
 * The codings the reactor keeps compressed (brotli and gzip) that an `Accept-Encoding`
 * header (RFC 9110 §12.5.3) accepts, best first: by weight, brotli first on a tie (it is
 * smaller). A coding is accepted by its own name (gzip also as `x-gzip`) with a non-zero
 * weight, or else by `*` with one; an explicit `gzip;q=0` refuses gzip whatever `*` says.
 */
export function acceptedCodings(header: string): readonly Coding[] {
  // The common headers of browsers and tools, answered without parsing.
  if (header === 'gzip, deflate, br, zstd' || header === 'gzip, deflate, br') return BOTH;
  if (header === 'gzip, deflate' || header === 'gzip') return GZIP;
  if (header === '') return NONE;
  const weights = weightsOf(header);
  const br = weightOf(weights, 'br');
  const gzip = weightOf(weights, 'gzip');
  if (br > 0 && gzip > 0) return br >= gzip ? BOTH : ['gzip', 'br'];
  return br > 0 ? BROTLI : gzip > 0 ? GZIP : NONE;
}

/**
 * The coding to answer in, of those the reactor keeps compressed (brotli and gzip): the
 * accepted one with the higher weight, brotli on a tie (it is smaller); undefined for
 * identity. Same rules as `acceptedCodings`.
 */
export function preferredEncoding(header: string | undefined): Coding | undefined {
  return header === undefined ? undefined : acceptedCodings(header)[0];
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
