import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError } from '../../../src/domain/errors.js';
import { identified, metadataGaps, normalizeMetadata } from '../../../src/domain/package/metadata.js';
import { VALID_METADATA } from '../../support/demo-package.js';

const issuesOf = (document: unknown): string[] => {
  try {
    normalizeMetadata(document);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigValidationError);
    return (error as ConfigValidationError).issues;
  }
};
const withField = (field: string, value: unknown) => ({ ...VALID_METADATA, [field]: value });

describe('metadata.json rules', () => {
  it('accepts a minimal valid document and keeps canonical field order', () => {
    const { uuid, ...rest } = VALID_METADATA;
    expect(Object.keys(normalizeMetadata({ uuid, readOnly: true, ...rest }))).toEqual(['name', 'version', 'description', 'guid', 'uuid', 'readOnly']);
  });

  it.each(['name', 'version', 'description'])('requires %s', (field) => {
    const document: Record<string, unknown> = { ...VALID_METADATA };
    delete document[field];
    expect(issuesOf(document)).toEqual([`${field}: required`]);
  });

  it('reads old (0.1.x) metadata without guid and uuid, and says what to add', () => {
    const { guid: _guid, uuid: _uuid, ...old } = VALID_METADATA;
    const metadata = normalizeMetadata(old);
    expect(metadata.guid).toBeUndefined();
    expect(metadataGaps(metadata)).toEqual([expect.stringMatching(/^"guid" is missing \(0\.1\.x metadata had none\): add "guid": "pkg:\/\/<your domain>\/demo-site"/), expect.stringMatching(/^"uuid" is missing.*add "uuid"/)]);
    expect(() => identified(metadata)).toThrow(ConfigValidationError);
    expect(metadataGaps(normalizeMetadata(VALID_METADATA))).toEqual([]);
    expect(issuesOf({ ...old, guid: 'not a uri' })).toEqual(['guid: must be a URI (got "not a uri")']);
  });

  it.each(['site', 'my-site-2', 'a1'])('accepts kebab-case name %s', (name) => expect(issuesOf(withField('name', name))).toEqual([]));
  it.each(['My-Site', 'my_site', '-site', 'site-', 'my--site', ''])('rejects name %j', (name) => expect(issuesOf(withField('name', name))).toHaveLength(1));

  it.each(['0.0.0', '1.2.3', '1.0.0-alpha.1', '1.0.0+build.7', '1.0.0-rc.1+sha.5114f85', '10.20.30'])('accepts version %s', (version) =>
    expect(issuesOf(withField('version', version))).toEqual([]),
  );
  it.each(['1.2', '01.2.3', '1.02.3', '1.2.03', 'v1.2.3', '1.2.3-', '1.2.3-01', '1.2.3+'])('rejects version %s', (version) =>
    expect(issuesOf(withField('version', version))).toHaveLength(1),
  );

  it.each([
    '123e4567-e89b-12d3-a456-426614174000',
    '123e4567-e89b-82d3-b456-426614174000',
    '123E4567-E89B-42D3-A456-426614174000',
    '123e4567-e89b-42d3-9456-426614174000',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  ])('accepts uuid %s', (uuid) => expect(issuesOf(withField('uuid', uuid))).toEqual([]));
  it.each([
    '123e4567-e89b-02d3-a456-426614174000',
    '123e4567-e89b-92d3-a456-426614174000',
    '123e4567-e89b-42d3-c456-426614174000',
    '123e4567-e89b-42d3-7456-426614174000',
    '123e4567e89b42d3a456426614174000',
    'not-a-uuid',
  ])('rejects uuid %s', (uuid) => expect(issuesOf(withField('uuid', uuid))).toHaveLength(1));

  it.each(['pkg://example.org/x', 'urn:uuid:123', 'https://example.org/p?q=1#f'])('accepts guid %s', (guid) => expect(issuesOf(withField('guid', guid))).toEqual([]));
  it.each(['no scheme', 'example.org/x', '://x', 'a b:c', 'pkg://bad%zz'])('rejects guid %s', (guid) => expect(issuesOf(withField('guid', guid))).toHaveLength(1));

  it('bounds the name and the version, which name files, to 100 characters each', () => {
    expect(issuesOf(withField('name', 'a'.repeat(100)))).toEqual([]);
    expect(issuesOf(withField('name', 'a'.repeat(101)))).toEqual(['name: at most 100 characters, since it names files (got 101)']);
    expect(issuesOf(withField('version', `1.0.0-${'a'.repeat(95)}`))).toEqual(['version: at most 100 characters, since it names files (got 101)']);
  });

  it('checks the optional fields', () => {
    expect(issuesOf({ ...VALID_METADATA, author: '', license: 3, readOnly: 'yes', modules: ['ok-module', 'Bad'] })).toEqual([
      'author: must be a non-empty string',
      'license: must be a non-empty string',
      'readOnly: must be a boolean',
      'modules[1]: must be kebab-case',
    ]);
    expect(issuesOf(withField('repository', { type: 'git' }))).toEqual(['repository.url: required URI']);
    expect(issuesOf(withField('repository', { type: 'git', url: 'https://example.org/r.git' }))).toEqual([]);
  });

  it.each(['>=1.0.0', '^1.2.3', '~1.2.3', '1.2.3', '*', '1.x', '1.2.x', '1', '1.2', '>=1.0.0, <2.0.0', '>=1.0.0 <2.0.0'])('accepts dependency range %s', (range) =>
    expect(issuesOf(withField('dependencies', { 'pkg://example.org/dep': range }))).toEqual([]),
  );

  it('rejects a dependency that is not a semver range', () => {
    expect(issuesOf(withField('dependencies', { 'pkg://example.org/dep': 'latest-ish' }))).toHaveLength(1);
  });

  it('normalizes the legacy dependency list and null', () => {
    expect(normalizeMetadata(withField('dependencies', [{ name: 'pkg://example.org/dep', version: '^1.0.0' }])).dependencies).toEqual({ 'pkg://example.org/dep': '^1.0.0' });
    expect(normalizeMetadata(withField('dependencies', null)).dependencies).toEqual({});
  });

  it('rejects a document that is not an object', () => {
    expect(issuesOf([])).toEqual(['must be a JSON object']);
  });
});
