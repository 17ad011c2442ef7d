import { describe, expect, it } from '@jest/globals';
import { overlayKey } from '../../../src/domain/serving/overlay-key.js';
import { ConfigValidationError, MountConflictError, UsageError } from '../../../src/domain/errors.js';
import { LayerStack, emptyLayer } from '../../../src/domain/serving/layer-stack.js';
import { MountTable, normalizePrefix } from '../../../src/domain/serving/mount-table.js';
import { normalizeRequestPath } from '../../../src/domain/serving/request-path.js';
import { RouteTable } from '../../../src/domain/serving/route-table.js';
import { normalizeMountConfig, parseMountOption } from '../../../src/domain/serving/mount-config.js';

describe('request paths', () => {
  it.each([
    ['/', '/'],
    ['/a/b.html', '/a/b.html'],
    ['/caf%C3%A9.html', '/café.html'],
    ['/docs/', '/docs/'],
    ['//a//b', '/a/b'],
  ])('normalizes %s', (raw, path) => expect(normalizeRequestPath(raw)).toEqual({ ok: true, path }));

  it.each(['/../etc/passwd', '/a/../../x', '/%2e%2e/x', '/%2E%2E/x', '/a%2fb', '/a%2F..%2Fb', '/a\\..\\b', '/a%5c..%5cb', '/a%00b', '/%zz', '/./a'])('refuses %s with 400', (raw) => {
    expect(normalizeRequestPath(raw)).toMatchObject({ ok: false, status: 400 });
  });

  it('refuses an overlong path with 414', () => {
    expect(normalizeRequestPath('/' + 'a'.repeat(5000))).toMatchObject({ ok: false, status: 414 });
  });
});

describe('mount table', () => {
  it('matches the longest prefix on segment boundaries', () => {
    const table = new MountTable<string>();
    table.add('/', 'root');
    table.add('/api', 'api');
    table.add('/api/v2/', 'v2');
    expect(table.match('/api/index.html')).toEqual({ mount: 'api', prefix: '/api/', path: '/index.html' });
    expect(table.match('/api')).toEqual({ mount: 'api', prefix: '/api/', path: '/', bare: true });
    expect(table.match('/api/v2/x')).toEqual({ mount: 'v2', prefix: '/api/v2/', path: '/x' });
    expect(table.match('/apix/y')).toEqual({ mount: 'root', prefix: '/', path: '/apix/y' });
  });

  it('matches a prefix in either Unicode spelling, as a link typed composed (NFC) or written decomposed (NFD) sends it', () => {
    const table = new MountTable<string>();
    table.add('/', 'root');
    table.add('/caf\u00e9/m\u00e9nu', 'nfc');
    table.add('/e\u0301t\u00e9', 'mixed');
    expect(table.match('/cafe\u0301/me\u0301nu/a\u00e9.html')).toEqual({ mount: 'nfc', prefix: '/caf\u00e9/m\u00e9nu/', path: '/a\u00e9.html' });
    expect(table.match('/cafe\u0301/me\u0301nu/')).toEqual({ mount: 'nfc', prefix: '/caf\u00e9/m\u00e9nu/', path: '/' });
    expect(table.match('/cafe\u0301/me\u0301nu')).toEqual({ mount: 'nfc', prefix: '/caf\u00e9/m\u00e9nu/', path: '/', bare: true });
    expect(table.match('/\u00e9t\u00e9/x')).toEqual({ mount: 'mixed', prefix: '/e\u0301t\u00e9/', path: '/x' });
    expect(table.match('/cafe\u0301/me\u0301nus')).toEqual({ mount: 'root', prefix: '/', path: '/cafe\u0301/me\u0301nus' });
    // Two spellings of one prefix are one prefix: two mounts cannot claim it.
    expect(() => table.add('/e\u0301te\u0301', 'again')).toThrow(MountConflictError);
  });

  it('refuses two mounts on one prefix', () => {
    const table = new MountTable<string>();
    table.add('/site/', 'a');
    expect(() => table.add('site', 'b')).toThrow(MountConflictError);
    expect(normalizePrefix('')).toBe('/');
  });

  it('refuses a prefix no request could reach: empty or dot segments, a backslash, a NUL', () => {
    expect(normalizePrefix(' //docs/v1// ')).toBe('/docs/v1/');
    expect(normalizePrefix('/a b/é')).toBe('/a b/é/');
    for (const [prefix, problem] of [['/a//b', 'an empty segment'], ['/a/../b', 'a ".." segment'], ['/./b', 'a "." segment'], ['/a\\b', 'a backslash or a NUL'], ['/a\0', 'a backslash or a NUL'], ['/a?b=u', 'a "?" or "#", which ends the path of a URL'], ['/a#b', 'a "?" or "#", which ends the path of a URL']])
      expect(() => normalizePrefix(prefix!)).toThrow(new UsageError(`mount path ${prefix}: ${problem}, which no request can reach`));
    // One folder per mount holds its overlay: its name must fit in a file name.
    expect(normalizePrefix(`/${'a'.repeat(128)}`)).toBe(`/${'a'.repeat(128)}/`);
    expect(() => normalizePrefix(`/${'a'.repeat(129)}`)).toThrow(/at most 128 characters once percent-encoded/);
    expect(() => normalizePrefix(`/${'é'.repeat(30)}`)).toThrow(/at most 128 characters once percent-encoded/);
  });

  it('reads --mount options and mounts files', () => {
    expect(parseMountOption('/docs=./docs.cap')).toEqual({ path: '/docs', source: './docs.cap' });
    expect(parseMountOption('docs=x')).toBeUndefined();
    expect(parseMountOption('/docs=')).toBeUndefined();
    expect(normalizeMountConfig({ mounts: [{ path: '/', source: 'a' }, { path: '/b', source: 'b', store: 's' }] }, 'm.json')).toHaveLength(2);
    expect(() => normalizeMountConfig({ mounts: [{ path: 'x' }] }, 'm.json')).toThrow(/m\.json: mounts\[0\]/);
    expect(() => normalizeMountConfig({ mounts: [{ path: '/a', source: 'a', writeable: false }] }, 'm.json')).toThrow(/mounts\[0\]: unknown key "writeable" \(mounts\[0\] takes path, source, store, writable, cors, verify\)/);
    expect(() => normalizeMountConfig({ mounts: [{ path: '/a/../b', source: 'a' }] }, 'm.json')).toThrow(/mounts\[0\]\.path: mount path \/a\/\.\.\/b: a "\.\." segment, which no request can reach/);
  });

  it('refuses a key of the mounts file beside "mounts"', () => {
    expect(() => normalizeMountConfig({ mounts: [{ path: '/', source: 'a' }], extra: 1 }, 'm.json')).toThrow(new ConfigValidationError('m.json', ['unknown key "extra" (the file takes mounts)']));
  });

  it('refuses a percent-escape in a mount path: requests are matched decoded, so it would be reached only double-encoded', () => {
    for (const path of ['/caf%C3%A9', '/%2e%2e', '/a/%2F', '/100%']) {
      expect(() => normalizePrefix(path)).toThrow(UsageError);
      expect(() => normalizeMountConfig({ mounts: [{ path, source: 'a' }] }, 'm.json')).toThrow(new ConfigValidationError('m.json', [`mounts[0].path: mount path ${path}: a "%"; a mount path is written decoded (/café, not /caf%C3%A9)`]));
    }
    expect(normalizePrefix('/café')).toBe('/café/');
  });

  it('takes a verify mode per mount in the mounts file, and nothing but eager or lazy', () => {
    expect(normalizeMountConfig({ mounts: [{ path: '/', source: 'a', verify: 'lazy' }, { path: '/b', source: 'b' }] }, 'm.json')).toEqual([
      { path: '/', source: 'a', verify: 'lazy' },
      { path: '/b', source: 'b' },
    ]);
    expect(() => normalizeMountConfig({ mounts: [{ path: '/', source: 'a', verify: true }] }, 'm.json')).toThrow(/mounts\[0\]\.verify: must be "eager" or "lazy"/);
  });
});

describe('layer stack', () => {
  const layer = (name: string, files: string[], tombstones: string[] = []) => {
    const l = emptyLayer(name, { writable: false, exported: true });
    for (const path of files) l.files.set(path, { path, size: 1, key: `${name}/${path}` });
    for (const path of tombstones) l.tombstones.add(path);
    return l;
  };

  it('resolves top down: first hit wins, a tombstone hides lower layers, a file above it is found again', () => {
    const stack = new LayerStack([layer('base', ['a', 'b', 'c']), layer('middle', ['a'], ['b', 'c']), layer('top', ['c'])]);
    expect(stack.resolve('a')?.file.key).toBe('middle/a');
    expect(stack.resolve('b')).toBeUndefined();
    expect(stack.resolve('c')?.file.key).toBe('top/c');
    expect(stack.resolve('x')).toBeUndefined();
    expect(stack.visiblePaths().sort()).toEqual(['a', 'c']);
  });
});

describe('route table', () => {
  it('maps declared routes once, moves remapped ones, and mirrors content otherwise', () => {
    const table = new RouteTable({
      routes: [
        { path: '/', resource: 'content/index.html' },
        { path: '/old', resource: 'content/page.html', remap: '/new' },
        { path: '/api/v1/data/items', dataset: 'items' },
        { path: '/raw', resource: 'data/raw.txt' },
      ],
    });
    expect(table.lookup('/')).toMatchObject({ kind: 'content', contentPath: 'index.html' });
    expect(table.lookup('/old')).toMatchObject({ kind: 'moved' });
    expect(table.lookup('/new')).toMatchObject({ kind: 'content', contentPath: 'page.html' });
    expect(table.lookup('/api/v1/data/items')).toMatchObject({ kind: 'dataset', dataset: 'items' });
    expect(table.lookup('/raw')).toMatchObject({ kind: 'file', packagePath: 'data/raw.txt' });
    expect(RouteTable.mirrored('/docs/')).toBe('docs/index.html');
    expect(RouteTable.mirrored('/a.css')).toBe('a.css');
  });

  it("gives each path its route's rule, else the first rule a route sets on the file it reaches", () => {
    const admin = { roles: ['admin'] };
    const open = { authenticationRequired: false };
    const table = new RouteTable({
      routes: [
        { path: '/admin', resource: 'content/admin.html', accessControl: admin },
        { path: '/admin-public', resource: 'content/admin.html', accessControl: open },
        { path: '/admin-alias', resource: 'content/admin.html' },
        { path: '/raw', resource: 'data/raw.txt', accessControl: admin },
        { path: '/other', resource: 'content/other.html' },
      ],
    });
    expect(table.ruleOf('/admin')).toBe(admin);
    expect(table.ruleOf('/admin-public')).toBe(open);
    expect(table.ruleOf('/admin-alias')).toBe(admin);
    expect(table.ruleOf('/admin.html')).toBe(admin);
    expect(table.ruleOf('/other')).toBeUndefined();
    expect(table.ruleOf('/other.html')).toBeUndefined();
    expect(table.ruleOf('/raw')).toBe(admin);
    expect(new RouteTable({ routes: [{ path: '/docs', resource: 'content/docs/index.html', accessControl: admin }] }).ruleOf('/docs/')).toBe(admin);
  });
});

describe('overlay keys', () => {
  it('name the mount path and the package, as DECISIONS.md shows, and never meet', () => {
    expect(overlayKey('/', 'example-site')).toBe('root~example-site');
    expect(overlayKey('/v2/', 'example-site')).toBe('v2~example-site');
    const paths = ['/', '/root/', '/a/b/', '/a~b/', '/a%7Eb/', '/é/', '/v1/', '/v1/v2/'];
    const keys = paths.map((path) => overlayKey(path, 'p'));
    expect(new Set(keys).size).toBe(paths.length);
    for (const key of keys) expect(key).not.toMatch(/[/\\]/);
  });
});
