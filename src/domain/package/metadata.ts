import { ConfigValidationError } from '../errors.js';
import { defineOwn, isRecord } from './documents.js';
import { KEBAB_CASE, SEMVER, isUri, isUuid } from './field-rules.js';
import { METADATA_FILE } from './package-paths.js';
import { isValidRange } from './version-range.js';

export interface Repository {
  type: string;
  url: string;
}

export interface Metadata {
  name: string;
  version: string;
  description: string;
  /** Absent only in old (0.1.x) metadata, which reading accepts with a warning: see metadataGaps. */
  guid?: string;
  uuid?: string;
  author?: string;
  license?: string;
  repository?: Repository;
  /** Dependency GUID -> semver range. */
  dependencies?: Record<string, string>;
  readOnly?: boolean;
  modules?: string[];
}

const FIELD_ORDER = ['name', 'version', 'description', 'guid', 'uuid', 'author', 'license', 'repository', 'dependencies', 'readOnly', 'modules'] as const;

/** The longest name, and the longest version: `<name>-<version>.cap`, written under a temporary name first, stays within a file name's 255 bytes. */
export const MAX_NAME_OR_VERSION = 100;

/**
 * Reads metadata.json into its canonical form: the legacy dependency list
 * `[{name: guid, version: range}]` becomes a GUID-to-range object and `null` becomes `{}`.
 * Throws ConfigValidationError listing every rule the document breaks.
 */
export function normalizeMetadata(raw: unknown): Metadata {
  if (!isRecord(raw)) throw new ConfigValidationError(METADATA_FILE, ['must be a JSON object']);
  const document: Record<string, unknown> = { ...raw };
  const issues: string[] = [];
  if ('dependencies' in document) document.dependencies = normalizeDependencies(document.dependencies, issues);
  issues.push(...metadataIssues(document));
  if (issues.length > 0) throw new ConfigValidationError(METADATA_FILE, issues);
  const metadata: Record<string, unknown> = {};
  for (const field of FIELD_ORDER) if (document[field] !== undefined) metadata[field] = document[field];
  return metadata as unknown as Metadata;
}

function normalizeDependencies(value: unknown, issues: string[]): unknown {
  if (value === null) return {};
  if (!Array.isArray(value)) return value;
  const dependencies: Record<string, unknown> = {};
  value.forEach((item, index) => {
    if (isRecord(item) && typeof item.name === 'string') defineOwn(dependencies, item.name, item.version ?? '*');
    else issues.push(`dependencies[${index}]: a legacy dependency needs a "name" (the GUID) and a "version"`);
  });
  return dependencies;
}

function metadataIssues(m: Record<string, unknown>): string[] {
  const issues: string[] = [];
  const requireString = (field: string, rule: (v: string) => boolean, expectation: string) => {
    const value = m[field];
    if (value === undefined) issues.push(`${field}: required`);
    else if (typeof value !== 'string') issues.push(`${field}: must be a string`);
    else if (!rule(value)) issues.push(`${field}: ${expectation} (got ${JSON.stringify(value)})`);
  };
  const optionalString = (field: string) => {
    const value = m[field];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0)) issues.push(`${field}: must be a non-empty string`);
  };
  requireString('name', (v) => KEBAB_CASE.test(v), 'must be kebab-case (^[a-z0-9]+(?:-[a-z0-9]+)*$)');
  requireString('version', (v) => SEMVER.test(v), 'must be a semantic version 2.0.0');
  // Both name files (<name>-<version>.cap, overlay folders): together they must fit in a file name.
  for (const field of ['name', 'version'])
    if (typeof m[field] === 'string' && (m[field] as string).length > MAX_NAME_OR_VERSION) issues.push(`${field}: at most ${MAX_NAME_OR_VERSION} characters, since it names files (got ${(m[field] as string).length})`);
  requireString('description', (v) => v.length > 0, 'must not be empty');
  // Old (0.1.x) metadata had neither: reading accepts that (see metadataGaps); a value that is there must be right.
  if (m.guid !== undefined) requireString('guid', isUri, 'must be a URI');
  if (m.uuid !== undefined) requireString('uuid', isUuid, 'must be a UUID (version 1-8, variant 8, 9, a or b), the nil UUID or the max UUID');
  optionalString('author');
  optionalString('license');
  if (m.repository !== undefined) {
    const repository = m.repository;
    if (!isRecord(repository)) issues.push('repository: must be an object with "type" and "url"');
    else {
      if (typeof repository.type !== 'string' || repository.type.length === 0) issues.push('repository.type: required non-empty string');
      if (typeof repository.url !== 'string' || !isUri(repository.url)) issues.push('repository.url: required URI');
    }
  }
  if (m.dependencies !== undefined) {
    if (!isRecord(m.dependencies)) issues.push('dependencies: must be an object of GUID to semver range');
    else
      for (const [guid, range] of Object.entries(m.dependencies)) {
        if (!isUri(guid)) issues.push(`dependencies: key ${JSON.stringify(guid)} must be a GUID URI`);
        if (typeof range !== 'string' || !isValidRange(range))
          issues.push(`dependencies[${JSON.stringify(guid)}]: ${JSON.stringify(range)} is not a semver range`);
      }
  }
  if (m.readOnly !== undefined && typeof m.readOnly !== 'boolean') issues.push('readOnly: must be a boolean');
  if (m.modules !== undefined) {
    if (!Array.isArray(m.modules)) issues.push('modules: must be an array of strings');
    else
      m.modules.forEach((module, index) => {
        if (typeof module !== 'string' || !KEBAB_CASE.test(module)) issues.push(`modules[${index}]: must be kebab-case`);
      });
  }
  return issues;
}

/** A package whose metadata has both identifiers. */
export type IdentifiedMetadata = Metadata & { guid: string; uuid: string };

/**
 * What old (0.1.x) metadata lacks to be a package today, each with what to add: empty
 * for current metadata. Reading warns with these; validate fails with them; pack refuses.
 */
export function metadataGaps(metadata: Metadata): string[] {
  const gaps: string[] = [];
  if (metadata.guid === undefined) gaps.push(`"guid" is missing (0.1.x metadata had none): add "guid": "pkg://<your domain>/${metadata.name}", the package's lasting identity`);
  if (metadata.uuid === undefined) gaps.push(`"uuid" is missing (0.1.x metadata had none): add "uuid": "<a new UUID, from uuidgen>"`);
  return gaps;
}

/** The metadata, when it has both identifiers; otherwise ConfigValidationError saying what to add. */
export function identified(metadata: Metadata): IdentifiedMetadata {
  const gaps = metadataGaps(metadata);
  if (gaps.length > 0) throw new ConfigValidationError(METADATA_FILE, gaps);
  return metadata as IdentifiedMetadata;
}
