import { KEBAB_CASE, SEMVER } from '../package/field-rules.js';

/** `<name>-<version>.cap`: how packs, bundles, stores and registries all name a package file. */
export function packageFileName(name: string, version: string): string {
  return `${name}-${version}.cap`;
}

/**
 * The name and version a `<name>-<version>.cap` file name carries. A kebab-case name
 * holds no dot, so the version starts at the first `-<digits>.`.
 */
export function parsePackageFileName(file: string): { name: string; version: string } | undefined {
  const match = /^(.+?)-(\d+\.\d+\.\d+(?:[-+].*)?)\.cap$/.exec(file);
  if (!match || !KEBAB_CASE.test(match[1]!) || !SEMVER.test(match[2]!)) return undefined;
  return { name: match[1]!, version: match[2]! };
}
