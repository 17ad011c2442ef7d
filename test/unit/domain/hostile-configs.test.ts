import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import YAML from 'yaml';
import { ToolkitError } from '../../../src/domain/errors.js';
import { normalizeMetadata } from '../../../src/domain/package/metadata.js';
import { normalizeManifest } from '../../../src/domain/package/manifest.js';
import { normalizeRoutes } from '../../../src/domain/package/routes.js';
import { normalizeStorage } from '../../../src/domain/package/storage.js';
import { normalizeAuthentication } from '../../../src/domain/package/authentication.js';
import { normalizeSecurity } from '../../../src/domain/integrity/security.js';
import { normalizeEnvelope } from '../../../src/domain/integrity/envelope.js';
import { parseBundleIndex } from '../../../src/domain/dependencies/bundle-index.js';
import { parseStoreIndex } from '../../../src/domain/dependencies/store-index.js';
import { parseRegistryIndex } from '../../../src/domain/dependencies/registry-index.js';
import { normalizeDeploy } from '../../../src/domain/auth/deploy-config.js';
import { normalizeMountConfig } from '../../../src/domain/serving/mount-config.js';
import { normalizeTestSuite } from '../../../src/domain/testing/test-suite.js';
import { parseDocument } from '../../../src/domain/package/documents.js';

/** Names that trip code which treats an object as a map, beside the documents' own. */
const TRICKY_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'length', '', '0', 'content/../x', '/'];
const leaf = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, '', 'x', '1.0.0', '^1.0.0', 'content/index.html', '/', 'pkg://example.org/a', '__proto__', 'a'.repeat(64), 'http://x', '../x'),
  fc.string({ maxLength: 12 }),
  fc.integer(),
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...TRICKY_KEYS), fc.string({ maxLength: 6 })), tie('value'), { maxKeys: 4 }),
  ),
}));

/** Every place in a document: the path of keys to each value, the document itself first. */
function places(document: unknown, at: string[] = []): string[][] {
  const found = [at];
  if (document !== null && typeof document === 'object') for (const [key, inner] of Object.entries(document)) found.push(...places(inner, [...at, key]));
  return found;
}

/** How many objects (not arrays) a JSON value holds, itself included. */
function countObjects(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const inner = Object.values(value).reduce<number>((sum, child) => sum + countObjects(child), 0);
  return Array.isArray(value) ? inner : inner + 1;
}

/** JSON text of `value` with `key` written twice at the start of its `target`th object (depth first). */
function stringifyRepeating(value: unknown, target: number, key: string): string {
  let seen = 0;
  const write = (node: unknown): string => {
    if (node === null || typeof node !== 'object') return JSON.stringify(node);
    if (Array.isArray(node)) return `[${node.map(write).join(',')}]`;
    const here = seen++ === target ? `${JSON.stringify(key)}:1,${JSON.stringify(key)}:2` : '';
    const members = Object.entries(node).map(([name, child]) => `${JSON.stringify(name)}:${write(child)}`);
    return `{${[here, ...members].filter((member) => member !== '').join(',')}}`;
  };
  return write(value);
}

/** A valid document with a few of its values replaced, removed or joined by stranger ones, as JSON.parse gives it (`__proto__` an own key). */
function mutated(valid: unknown): fc.Arbitrary<unknown> {
  const edit = fc.record({ place: fc.nat(), action: fc.constantFrom('replace', 'remove', 'add'), key: fc.oneof(fc.constantFrom(...TRICKY_KEYS), fc.string({ maxLength: 6 })), value });
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
    let document = JSON.parse(JSON.stringify(valid)) as unknown;
    for (const { place, action, key, value: replacement } of edits) {
      const all = places(document);
      const path = all[place % all.length]!;
      if (path.length === 0) {
        if (action === 'replace') document = replacement;
        continue;
      }
      const parent = path.slice(0, -1).reduce((node, step) => (node as Record<string, unknown>)[step], document) as Record<string, unknown> | unknown[];
      const last = path.at(-1)!;
      const json = JSON.parse(JSON.stringify(replacement) ?? 'null') as unknown;
      if (action === 'replace') Object.defineProperty(parent, last, { value: json, enumerable: true, writable: true, configurable: true });
      else if (action === 'remove' && Array.isArray(parent)) parent.splice(Number(last), 1);
      else if (action === 'remove') delete (parent as Record<string, unknown>)[last];
      else if (!Array.isArray(parent)) Object.defineProperty(parent, key, { value: json, enumerable: true, writable: true, configurable: true });
    }
    return JSON.parse(JSON.stringify(document) ?? 'null') as unknown;
  });
}

/** Objects inside `value` whose prototype is not a plain object's, an array's, a Map's, a Set's or none. */
function foreignPrototypes(value: unknown, seen = new Set<unknown>()): unknown[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  const prototype = Object.getPrototypeOf(value) as unknown;
  const own = [Object.prototype, Array.prototype, Map.prototype, Set.prototype, null].includes(prototype as object) ? [] : [value];
  const inner = value instanceof Map ? [...value.values(), ...value.keys()] : value instanceof Set ? [...value] : Object.values(value);
  return [...own, ...inner.flatMap((item) => foreignPrototypes(item, seen))];
}

const GUID = 'pkg://example.org/a';
const VALID: Record<string, unknown> = {
  'metadata.json': { name: 'a', version: '1.0.0', description: 'd', guid: GUID, uuid: '123e4567-e89b-42d3-a456-426614174000', author: 'x', repository: { type: 'git', url: 'https://x.example/a' }, dependencies: { 'pkg://example.org/b': '^1.0.0' }, readOnly: false, modules: ['m'] },
  'manifest.json': { 'content/index.html': { type: 'text/html', visibility: 'exported' }, 'content/a.css': { type: 'text/css', visibility: 'private' } },
  'routes.json': {
    index: 'content/index.html',
    routes: [
      { path: '/', resource: 'content/index.html', responseHeaders: { 'X-A': 'b' }, remap: '/home', responseRewrite: { body: 'x', headers: { 'X-B': 'c' } }, requestHeaders: { 'X-C': 'd' } },
      { path: '/api/v1/data/items', dataset: 'items', accessControl: { roles: ['r'], authenticationRequired: true } },
      { path: '/theme.css', resource: 'pkg://example.org/b/content/theme.css' },
    ],
  },
  'storage.json': { storage: { dataSets: { items: { source: 'data/items.json', schemaFile: 'data/items.schema.json', schemaType: 'json-schema' }, rows: { databaseFile: 'data/db.sqlite', table: 't' } }, layers: [{ path: 'layers/a', writable: true, visibility: 'exported' }] } },
  'authentication.json': { authentication: { basicAuth: { enabled: true, passwdFile: 'auth/htpasswd', realm: 'r' }, oauth2: { enabled: true, provider: 'p', clientId: 'c', authorizationUrl: 'https://p.example/a', tokenUrl: 'https://p.example/t', userinfoUrl: 'https://p.example/u', redirectPath: '/auth/callback', scopes: ['openid'] } } },
  'security.json': { security: { integrityChecks: { checksumAlgorithm: 'SHA-256', checksums: { 'metadata.json': 'a'.repeat(64), 'content/index.html': 'b'.repeat(64) } }, digitalSignatures: { publicKey: 'signature.pub.asc', signatureFile: 'signature.sig', certificateType: 'OpenPGP' } } },
  'signature.json': { encryption: { algorithm: 'AES-256-GCM', keyManagement: 'RSA-OAEP-SHA256', encryptedDek: 'AAAA', iv: 'AAAAAAAAAAAAAAAA', authTag: 'AAAAAAAAAAAAAAAAAAAAAA==' } },
  'packages/index.json': { [GUID]: { file: 'packages/a-1.0.0.cap', version: '1.0.0', sha256: 'c'.repeat(64) } },
  'a store index.json': { [GUID]: 'a-1.0.0.cap' },
  'a registry index.json': { packages: { [GUID]: { name: 'a', versions: { '1.0.0': { file: 'a-1.0.0.cap', sha256: 'd'.repeat(64), size: 10 } } } } },
  'deploy.json': { baseUrl: 'https://site.example', authentication: { basicAuth: { passwdFile: '/etc/htpasswd' }, oauth2: { clientSecret: 's' }, sessionSecret: 'x'.repeat(32), roles: { alice: ['editor'] } } },
  'a mounts file': { mounts: [{ path: '/a', source: 'a.cap', writable: false, cors: ['https://app.example'], verify: 'lazy', store: 'store' }] },
  'a tests/*.yaml file': { tests: [{ name: 't', type: 'route', url: '/', expected_status: 200, response_contains: 'x', expected_content_type: 'text/html' }, { name: 'f', type: 'file', path: 'content/index.html', contains: 'x' }, { name: 'd', type: 'data_validation', format: 'json', data_file: 'data/items.json', schema_file: 'data/items.schema.json' }, { name: 'c', type: 'config', format: 'yaml', config_file: 'routes.json' }] },
};

const READERS: Array<[string, (raw: unknown) => unknown]> = [
  ['metadata.json', normalizeMetadata],
  ['manifest.json', normalizeManifest],
  ['routes.json', normalizeRoutes],
  ['storage.json', normalizeStorage],
  ['authentication.json', normalizeAuthentication],
  ['security.json', normalizeSecurity],
  ['signature.json', normalizeEnvelope],
  ['packages/index.json', parseBundleIndex],
  ['a store index.json', (raw) => parseStoreIndex(raw, 'index.json')],
  ['a registry index.json', (raw) => parseRegistryIndex(raw, 'index.json')],
  ['deploy.json', (raw) => normalizeDeploy(raw, 'deploy.json')],
  ['a mounts file', (raw) => normalizeMountConfig(raw, 'mounts.json')],
  ['a tests/*.yaml file', (raw) => normalizeTestSuite(raw, 'tests/a.yaml')],
];

describe('configuration documents from strangers', () => {
  it.each(READERS)('%s: a valid document with stranger values in it is read or refused with a typed error, never a TypeError', (name, read) => {
    expect(() => read(VALID[name])).not.toThrow();
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: mutated(VALID[name]) }, { weight: 1, arbitrary: value }), (raw) => {
        let result: unknown;
        try {
          result = read(raw);
        } catch (error) {
          if (!(error instanceof ToolkitError)) throw error;
          return;
        }
        // What is read is plain data: no object of it took a stranger's value as its prototype.
        expect(foreignPrototypes(result)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['packages/index.json', parseBundleIndex, (entry: string) => `{${entry}: {"file": "packages/a-1.0.0.cap", "version": "1.0.0", "sha256": "${'c'.repeat(64)}"}}`],
    ['a store index.json', (raw: unknown) => parseStoreIndex(raw, 'index.json'), (entry: string) => `{${entry}: "a-1.0.0.cap"}`],
    ['a registry index.json', (raw: unknown) => parseRegistryIndex(raw, 'index.json'), (entry: string) => `{"packages": {${entry}: {"name": "a", "versions": {"1.0.0": {"file": "a-1.0.0.cap", "sha256": "${'d'.repeat(64)}", "size": 1}}}}}`],
    ['deploy.json', (raw: unknown) => normalizeDeploy(raw, 'deploy.json'), (entry: string) => `{"authentication": {"roles": {${entry}: ["admin"]}}}`],
    ['metadata.json (legacy dependency list)', normalizeMetadata, (entry: string) => `{"name": "a", "version": "1.0.0", "description": "d", "guid": "${GUID}", "uuid": "123e4567-e89b-42d3-a456-426614174000", "dependencies": [{"name": ${entry}, "version": "^1.0.0"}]}`],
  ])('%s: an entry keyed __proto__ is refused or kept as an entry, never made the prototype of what is read', (_name, read, document) => {
    let result: unknown;
    try {
      result = read(JSON.parse(document('"__proto__"')) as unknown);
    } catch (error) {
      expect(error).toBeInstanceOf(ToolkitError);
      return;
    }
    expect(foreignPrototypes(result)).toEqual([]);
    expect(JSON.stringify(result)).toContain('"__proto__"');
  });

  it('YAML: a repeated key is refused where it stands, as yaml itself would, but found in one pass: a map of 50,000 keys, where the check of yaml itself takes half a minute', () => {
    expect(() => parseDocument('a: 1\nb:\n  - c: 1\n    c: 2\n', 'd.yaml')).toThrow(expect.objectContaining({ code: 'CONFIG_PARSE', message: expect.stringContaining('Map keys must be unique'), line: 4 }));
    expect(parseDocument('a: 1\n"1": x\n1: y\n', 'd.yaml')).toEqual({ a: 1, 1: 'y' });
    const wide = `- id: "1"\n${Array.from({ length: 50_000 }, (_, i) => `  k${i}: ${i}\n`).join('')}`;
    expect(Object.keys((parseDocument(wide, 'wide.yaml') as Array<Record<string, unknown>>)[0]!)).toHaveLength(50_001);
    expect(() => parseDocument(`v: ${'['.repeat(5000)}${']'.repeat(5000)}\n`, 'deep.yaml')).toThrow(expect.objectContaining({ code: 'CONFIG_PARSE', message: expect.stringContaining('nests deeper') }));
  });

  it('YAML: repeated keys are found exactly where yaml itself finds them, for any small document', () => {
    const key = fc.constantFrom('a', 'b', '"a"', "'b'", '1', '"1"', 'null', '~', 'true');
    const map = (indent: string) => fc.array(fc.tuple(key, fc.constantFrom('1', 'x', '[1, 2]', '{a: 1, a: 2}', '{a: 1}')), { minLength: 1, maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${indent}${k}: ${v}`).join('\n'));
    fc.assert(
      fc.property(map(''), (text) => {
        let expected: unknown;
        try {
          expected = YAML.parse(text);
        } catch {
          expect(() => parseDocument(text, 'd.yaml')).toThrow(expect.objectContaining({ message: expect.stringContaining('Map keys must be unique') }));
          return;
        }
        expect(parseDocument(text, 'd.yaml')).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('a JSON document is read as JSON.parse reads it unless an object in it, at any depth, repeats a key', () => {
    const keyOf = fc.oneof(fc.constantFrom(...TRICKY_KEYS), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), keyOf, fc.nat(), (document, key, pick) => {
        const text = JSON.stringify(document);
        expect(parseDocument(text, 'd.json')).toEqual(JSON.parse(text));
        // The key written twice into one of the document's objects (JSON.parse would keep the second silently).
        const objects = countObjects(document);
        if (objects === 0) return;
        const repeated = stringifyRepeating(document, pick % objects, key);
        expect(() => parseDocument(repeated, 'd.json')).toThrow(expect.objectContaining({ code: 'CONFIG_PARSE', message: expect.stringContaining('appears twice') }));
      }),
      { numRuns: 2000 },
    );
    expect(parseDocument('[{"__proto__":{"a":[{"b":1}]}},[{"c":2}]]', 'd.json')).toEqual(JSON.parse('[{"__proto__":{"a":[{"b":1}]}},[{"c":2}]]'));
  });

  it('any text is a document or a ConfigParseError, as JSON or as YAML', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('{', '[', '- a: &x [*x]', 'a: !!binary x', '%YAML 9', 'a: b\n  c', '? [a]\n: b', '"\\ud800"', '{"a":1,"a":2}')), fc.constantFrom('a.json', 'a.yaml'), (text, file) => {
        try {
          parseDocument(text, file);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolkitError);
          expect((error as ToolkitError).code).toBe('CONFIG_PARSE');
        }
      }),
      { numRuns: 3000 },
    );
  });
});
