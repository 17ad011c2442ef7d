/** The well-formedness rules SPEC.md gives for metadata fields. */

export const KEBAB_CASE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Semantic Versioning 2.0.0, the regular expression the specification publishes. */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Version digit 1-8, variant 8/9/a/b, either case; nil and max are accepted too. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const MAX_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

export function isUuid(value: string): boolean {
  return UUID.test(value) || value === NIL_UUID || value.toLowerCase() === MAX_UUID;
}

/** What an HTTP field value may hold as node sends it (RFC 9110): tab, visible ASCII and space, or Latin-1 beyond; never a line break. */
export const HTTP_FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** An absolute URI per RFC 3986: a scheme, then characters a URI may hold. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

export function isUri(value: string): boolean {
  if (!URI.test(value)) return false;
  // A percent sign must start a valid escape.
  return !/%(?![0-9A-Fa-f]{2})/.test(value);
}

/**
 * An http(s) URL with a host, as the reactor will use it: parsed by WHATWG URL rules, so
 * what `new URL` refuses (`http://[`, `http://:0`) is refused at load, not on a request.
 */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !/^https?:\/\/[^\s/?#\\][^\s]*$/i.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}
