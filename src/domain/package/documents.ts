import YAML from 'yaml';
import { ConfigParseError } from '../errors.js';
import { locateJsonError } from './json-error-locator.js';

/** Parses a JSON document, reporting failures with the file and a line:column position. */
export function parseJson(text: string, file: string): unknown {
  const body = stripBom(text);
  try {
    return JSON.parse(body);
  } catch {
    const offset = locateJsonError(body);
    const { line, column } = lineAndColumn(body, offset);
    const found = offset >= body.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(body[offset])}`;
    throw new ConfigParseError(file, `invalid JSON: ${found}`, line, column);
  }
}

const DEEPER_THAN_THE_PARSER = 'it nests deeper than the YAML parser reads';

export function parseYaml(text: string, file: string): unknown {
  const body = stripBom(text);
  try {
    // yaml's own check for repeated keys compares each key with every other: a map of
    // 200,000 keys (3 MB) would hold a reactor's start for many minutes. Checked below in one pass.
    const document = YAML.parseDocument(body, { prettyErrors: false, uniqueKeys: false });
    if (document.errors.length > 0) throw document.errors[0];
    const repeated = repeatedKey(document.contents);
    if (repeated) {
      const { line, column } = lineAndColumn(body, repeated.range?.[0] ?? 0);
      throw new ConfigParseError(file, 'invalid YAML: Map keys must be unique', line, column);
    }
    return document.toJS();
  } catch (error) {
    if (error instanceof ConfigParseError) throw error;
    if (error instanceof YAML.YAMLParseError) {
      const { line, column } = lineAndColumn(body, error.pos[0]);
      // yaml reports its own stack running out as a parse error at the place it reached.
      const reason = error.message.includes('call stack') ? DEEPER_THAN_THE_PARSER : error.message.split('\n')[0];
      throw new ConfigParseError(file, `invalid YAML: ${reason}`, line, column);
    }
    if (error instanceof RangeError) throw new ConfigParseError(file, `invalid YAML: ${DEEPER_THAN_THE_PARSER}`);
    throw new ConfigParseError(file, `invalid YAML: ${(error as Error).message}`);
  }
}

/** The first key a map repeats (a scalar equal to an earlier key of its map), searched without recursion. */
function repeatedKey(root: unknown): { range?: [number, number, number] | null } | undefined {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (YAML.isMap(node)) {
      const seen = new Set<unknown>();
      for (const { key, value } of node.items) {
        if (YAML.isScalar(key)) {
          if (seen.has(key.value)) return key;
          seen.add(key.value);
        }
        pending.push(key, value);
      }
    } else if (YAML.isSeq(node)) for (const item of node.items) pending.push(item);
  }
  return undefined;
}

/** JSON (two-space indented) or YAML by the file's extension: how a data file is written back. */
export function serializeDocument(value: unknown, file: string): string {
  return /\.ya?ml$/i.test(file) ? YAML.stringify(value) : JSON.stringify(value, null, 2) + '\n';
}

/** JSON or YAML by the file's extension. */
export function parseDocument(text: string, file: string): unknown {
  return /\.ya?ml$/i.test(file) ? parseYaml(text, file) : parseJson(text, file);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets `record[key]` as an own property whatever the key: assigned, a stranger's key
 * `__proto__` would replace the record's prototype instead, and the entry be lost.
 */
export function defineOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
