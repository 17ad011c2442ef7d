/**
 * Why a path, written without its leading and trailing slashes, is one no request reaches,
 * or undefined. Requests are matched by their decoded path (normalizeRequestPath), which
 * never holds an empty or dot segment, a backslash or a NUL, and ends at `?` or `#`.
 */
export function unreachableSegment(trimmed: string): string | undefined {
  for (const segment of trimmed.split('/')) {
    const problem = segment === '' ? 'an empty segment' : segment === '.' || segment === '..' ? `a "${segment}" segment` : /[\\\0]/.test(segment) ? 'a backslash or a NUL' : /[?#]/.test(segment) ? 'a "?" or "#", which ends the path of a URL' : undefined;
    if (problem) return problem;
  }
  return undefined;
}
