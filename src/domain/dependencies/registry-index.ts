import { InvalidRegistryError } from '../errors.js';
import { defineOwn, isRecord } from '../package/documents.js';
import { KEBAB_CASE, SEMVER } from '../package/field-rules.js';
import { unsafePathReason } from '../package/package-paths.js';

export const REGISTRY_INDEX_FILE = 'index.json';

/** One published version: its file (relative to the registry root), SHA-256 and size. */
export interface RegistryVersion {
  file: string;
  sha256: string;
  size: number;
}

export interface RegistryPackage {
  name: string;
  versions: Record<string, RegistryVersion>;
}

/** `index.json` at a registry root: packages keyed by GUID. */
export interface RegistryIndex {
  packages: Record<string, RegistryPackage>;
}

export const SHA256_HEX = /^[0-9a-f]{64}$/i;

/**
 * Reads a registry's index.json, refusing it whole (InvalidRegistryError listing every
 * problem) when its shape is wrong: a registry that lies about one entry is not trusted
 * for the others.
 */
export function parseRegistryIndex(raw: unknown, where: string): RegistryIndex {
  if (!isRecord(raw) || !isRecord(raw.packages)) throw new InvalidRegistryError(`${where}: must be an object with a "packages" object keyed by GUID`);
  const issues: string[] = [];
  const packages: Record<string, RegistryPackage> = {};
  for (const [guid, value] of Object.entries(raw.packages)) {
    if (!isRecord(value) || typeof value.name !== 'string' || !KEBAB_CASE.test(value.name) || !isRecord(value.versions)) {
      issues.push(`packages[${JSON.stringify(guid)}]: needs a kebab-case "name" and a "versions" object`);
      continue;
    }
    const versions: Record<string, RegistryVersion> = {};
    for (const [version, entry] of Object.entries(value.versions)) {
      const at = `packages[${JSON.stringify(guid)}].versions[${JSON.stringify(version)}]`;
      if (!SEMVER.test(version)) issues.push(`${at}: ${JSON.stringify(version)} is not a semantic version`);
      else if (!isRecord(entry) || typeof entry.file !== 'string' || unsafePathReason(entry.file) !== undefined) issues.push(`${at}: "file" must be a path relative to the registry root`);
      else if (typeof entry.sha256 !== 'string' || !SHA256_HEX.test(entry.sha256)) issues.push(`${at}: "sha256" must be 64 hex digits`);
      else if (typeof entry.size !== 'number' || !Number.isSafeInteger(entry.size) || entry.size < 0) issues.push(`${at}: "size" must be a whole number of bytes`);
      else versions[version] = { file: entry.file, sha256: entry.sha256.toLowerCase(), size: entry.size };
    }
    defineOwn(packages, guid, { name: value.name, versions });
  }
  if (issues.length > 0) throw new InvalidRegistryError(`${where}: ${issues.join('; ')}`);
  return { packages };
}

/** The index with one more version of a package (or the same version's entry replaced). */
export function withVersion(index: RegistryIndex, guid: string, name: string, version: string, entry: RegistryVersion): RegistryIndex {
  const current = index.packages[guid];
  return { packages: { ...index.packages, [guid]: { name, versions: { ...(current?.versions ?? {}), [version]: entry } } } };
}
