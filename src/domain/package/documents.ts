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

export function parseYaml(text: string, file: string): unknown {
  const body = stripBom(text);
  try {
    return YAML.parse(body, { prettyErrors: false });
  } catch (error) {
    if (error instanceof YAML.YAMLParseError) {
      const { line, column } = lineAndColumn(body, error.pos[0]);
      throw new ConfigParseError(file, `invalid YAML: ${error.message.split('\n')[0]}`, line, column);
    }
    throw new ConfigParseError(file, `invalid YAML: ${(error as Error).message}`);
  }
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
