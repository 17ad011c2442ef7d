import semver from 'semver';

/**
 * SPEC.md accepts comma conjunctions (`>=1.0.0, <2.0.0`) that node-semver does not:
 * a comma means the same as the space node-semver uses for "and".
 */
export function toSemverRange(range: string): string {
  return range.trim().replace(/\s*,\s*/g, ' ');
}

export function isValidRange(range: string): boolean {
  return semver.validRange(toSemverRange(range)) !== null;
}

/** The newest version satisfying the range, pre-releases only when the range names them. */
export function newestSatisfying(versions: Iterable<string>, range: string): string | undefined {
  return semver.maxSatisfying([...versions].filter((v) => semver.valid(v) !== null), toSemverRange(range)) ?? undefined;
}

/** `1.2.3` -> `1.2.4`, and `1.2.3-beta+7` -> `1.2.4`: the save is a release of its own. */
export function incrementPatch(version: string): string {
  const parsed = semver.parse(version);
  if (parsed === null) throw new Error(`not a semantic version: ${version}`);
  return `${parsed.major}.${parsed.minor}.${parsed.patch + 1}`;
}

/** Semantic-version precedence, for sorting. */
export function compareVersions(a: string, b: string): number {
  return semver.compare(a, b);
}
