import YAML from 'yaml';
import { ConfigParseError } from '../errors.js';
import { locateJsonError } from './json-error-locator.js';

export interface ParseOptions {
  /**
   * A dataset's JSON file reads a repeated key as JSON.parse does, the last one winning, as
   * the data API reads an item sent to it: looking for one would add about half again to
   * parsing a file of a hundred megabytes. Configuration documents refuse it, as YAML does.
   */
  lastKeyWins?: boolean;
}

/** Parses a JSON document, reporting failures with the file and a line:column position. */
export function parseJson(text: string, file: string, options: ParseOptions = {}): unknown {
  const body = stripBom(text);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    const offset = locateJsonError(body);
    const { line, column } = lineAndColumn(body, offset);
    const found = offset >= body.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(body[offset])}`;
    throw new ConfigParseError(file, `invalid JSON: ${found}`, line, column);
  }
  if (!options.lastKeyWins && mayRepeatKeys(body, value)) {
    const repeated = repeatedJsonKey(body);
    if (repeated) {
      const { line, column } = lineAndColumn(body, repeated.offset);
      throw new ConfigParseError(file, `invalid JSON: the key ${JSON.stringify(repeated.key)} appears twice in one object`, line, column);
    }
  }
  return value;
}

/**
 * False when valid JSON text certainly repeats no key, found in a fraction of JSON.parse's
 * time (a 10,000-file package's manifest, routes and security hold 30,000 keys): every key
 * ends in `":` (a `":` inside a string follows a backslash, and only adds to the count), so
 * as many `":` as the parsed value has keys means none was dropped.
 */
function mayRepeatKeys(text: string, value: unknown): boolean {
  if (/"\s+:/.test(text)) return true;
  let ends = 0;
  for (let at = text.indexOf('":'); at !== -1; at = text.indexOf('":', at + 2)) ends++;
  return ends !== keyCount(value);
}

/**
 * The keys of every object in a parsed value. A `for...in` over each object, not an array of
 * its values: on that package's documents, at start, 10 ms less.
 */
function keyCount(value: unknown): number {
  let count = 0;
  const pending: object[] = typeof value === 'object' && value !== null ? [value] : [];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child === 'object' && child !== null) pending.push(child);
      }
      continue;
    }
    // JSON.parse makes plain objects, whose prototype has nothing enumerable: for...in sees their own keys only.
    for (const key in node) {
      count++;
      const child = (node as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) pending.push(child);
    }
  }
  return count;
}

/**
 * The first key an object of valid JSON text repeats (JSON.parse keeps the last silently),
 * with where it stands. A loop, not a regular expression: one of strings and braces took a
 * stack frame per character of a string, and a 9 MB description overflowed it.
 */
function repeatedJsonKey(text: string): { key: string; offset: number } | undefined {
  const outer: Array<Set<string>> = [];
  let keys = new Set<string>();
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === OPEN_BRACE) {
      outer.push(keys);
      keys = new Set();
    } else if (char === CLOSE_BRACE) keys = outer.pop()!;
    else if (char === QUOTE) {
      const start = at;
      at = closingQuote(text, at + 1);
      let next = at + 1;
      while (next < text.length && JSON_SPACE.has(text.charCodeAt(next))) next++;
      if (text.charCodeAt(next) !== COLON) continue;
      const quoted = text.slice(start, at + 1);
      // "\u0061" and "a" are one key.
      const key = quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
      if (keys.has(key)) return { key, offset: start };
      keys.add(key);
    }
  }
  return undefined;
}

const [OPEN_BRACE, CLOSE_BRACE, QUOTE, COLON, BACKSLASH] = ['{', '}', '"', ':', '\\'].map((char) => char.charCodeAt(0)) as [number, number, number, number, number];
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Where the string opened before `from` ends, in text JSON.parse accepted: the next quote no odd run of backslashes escapes. */
function closingQuote(text: string, from: number): number {
  for (let at = text.indexOf('"', from); ; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A document's bytes as text: JSON and YAML files are UTF-8, and bytes that are not would be read as U+FFFD, not as written. */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new ConfigParseError(file, 'is not valid UTF-8 (JSON and YAML documents are UTF-8)');
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
export function parseDocument(text: string, file: string, options: ParseOptions = {}): unknown {
  return /\.ya?ml$/i.test(file) ? parseYaml(text, file) : parseJson(text, file, options);
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
