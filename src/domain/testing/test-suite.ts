import { isRecord } from '../package/documents.js';

export type PackageTest =
  | { type: 'route'; name: string; url: string; expectedStatus: number; responseContains?: string; expectedContentType?: string }
  | { type: 'file'; name: string; path: string; contains?: string }
  | { type: 'data_validation'; name: string; format: 'json' | 'yaml'; dataFile: string; schemaFile: string }
  | { type: 'config'; name: string; format: 'json' | 'yaml'; configFile: string };

/** A definition that cannot run, reported as a failure of its own. */
export interface InvalidTest {
  type: 'invalid';
  name: string;
  problems: string[];
}

/** Reads a `tests/*.yaml` document: a top-level `tests` list of named, typed tests. */
export function normalizeTestSuite(raw: unknown, file: string): Array<PackageTest | InvalidTest> {
  if (!isRecord(raw) || !Array.isArray(raw.tests)) return [{ type: 'invalid', name: file, problems: [`${file}: needs a top-level "tests" list`] }];
  return raw.tests.map((item, index) => normalizeTest(item, `${file} tests[${index}]`));
}

function normalizeTest(raw: unknown, where: string): PackageTest | InvalidTest {
  if (!isRecord(raw)) return { type: 'invalid', name: where, problems: [`${where}: must be an object`] };
  const name = typeof raw.name === 'string' && raw.name !== '' ? raw.name : where;
  const problems: string[] = [];
  const text = (field: string, required: boolean): string | undefined => {
    const value = raw[field];
    if (value === undefined) {
      if (required) problems.push(`"${field}" is required`);
      return undefined;
    }
    if (typeof value !== 'string' || value === '') problems.push(`"${field}" must be a non-empty string`);
    return typeof value === 'string' ? value : undefined;
  };
  // Package paths written rooted (`/metadata.json`, as other implementations do) mean the same file.
  const packagePath = (field: string): string | undefined => text(field, true)?.replace(/^\/+(?=.)/, '');
  const format = (): 'json' | 'yaml' => {
    const value = raw.format;
    if (value !== 'json' && value !== 'yaml') problems.push('"format" must be "json" or "yaml"');
    return value === 'yaml' ? 'yaml' : 'json';
  };
  if (typeof raw.name !== 'string' || raw.name === '') problems.push('"name" is required');
  let test: PackageTest | undefined;
  switch (raw.type) {
    case 'route': {
      const url = text('url', true);
      const status = raw.expected_status;
      if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) problems.push('"expected_status" must be an HTTP status code');
      const responseContains = text('response_contains', false);
      const expectedContentType = text('expected_content_type', false);
      test = { type: 'route', name, url: url ?? '', expectedStatus: status as number, ...(responseContains !== undefined ? { responseContains } : {}), ...(expectedContentType !== undefined ? { expectedContentType } : {}) };
      break;
    }
    case 'file': {
      const path = packagePath('path');
      const contains = text('contains', false);
      test = { type: 'file', name, path: path ?? '', ...(contains !== undefined ? { contains } : {}) };
      break;
    }
    case 'data_validation':
      test = { type: 'data_validation', name, format: format(), dataFile: packagePath('data_file') ?? '', schemaFile: packagePath('schema_file') ?? '' };
      break;
    case 'config':
      test = { type: 'config', name, format: format(), configFile: packagePath('config_file') ?? '' };
      break;
    default:
      problems.push(`"type" must be route, file, data_validation or config (got ${JSON.stringify(raw.type)})`);
  }
  return problems.length > 0 || !test ? { type: 'invalid', name, problems: problems.map((p) => `${where}: ${p}`) } : test;
}

/** A route test's URL: a path, or an absolute URL of which only the path and query are used. */
export function requestTarget(url: string): string | undefined {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return undefined;
  }
}
