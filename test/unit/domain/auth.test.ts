import { describe, expect, it } from '@jest/globals';
import { decideAccess, rolesOf, type Identity } from '../../../src/domain/auth/access.js';
import { normalizeDeploy } from '../../../src/domain/auth/deploy-config.js';
import { parseHtpasswd } from '../../../src/domain/auth/htpasswd.js';
import { MAX_RETURN_PATH, isCrossSiteWrite, isOwnHost, isSameOrigin, normalizeOrigin, safeReturnPath } from '../../../src/domain/auth/same-origin.js';
import fc from 'fast-check';
import { ConfigValidationError } from '../../../src/domain/errors.js';

const who = (...roles: string[]): Identity => ({ name: 'ann', roles, via: 'basic' });

describe('decideAccess', () => {
  it('lets anyone through a package without authentication and without a rule', () => {
    expect(decideAccess(undefined, false, undefined)).toBe('allow');
  });

  it('asks for an identity where the package enables authentication', () => {
    expect(decideAccess(undefined, true, undefined)).toBe('unauthenticated');
    expect(decideAccess(undefined, true, who())).toBe('allow');
  });

  it('reads a missing authenticationRequired as true, even where authentication is off', () => {
    expect(decideAccess({ roles: [] }, false, undefined)).toBe('unauthenticated');
    expect(decideAccess({}, false, who())).toBe('allow');
  });

  it('makes a route public with authenticationRequired false and no roles', () => {
    expect(decideAccess({ authenticationRequired: false }, true, undefined)).toBe('allow');
  });

  it('checks authentication before roles, and accepts any one of the roles', () => {
    expect(decideAccess({ roles: ['admin'], authenticationRequired: false }, true, undefined)).toBe('unauthenticated');
    expect(decideAccess({ roles: ['admin', 'editor'] }, true, who('viewer'))).toBe('forbidden');
    expect(decideAccess({ roles: ['admin', 'editor'] }, true, who('editor'))).toBe('allow');
  });
});

describe('rolesOf', () => {
  it('joins the roles of every name with the claimed ones, once each', () => {
    expect(rolesOf(['jo@example.org', 'sub-1'], { 'jo@example.org': ['admin'], 'sub-1': ['editor', 'admin'] }, ['viewer']).sort()).toEqual(['admin', 'editor', 'viewer']);
    expect(rolesOf(['constructor'], {})).toEqual([]);
  });
});

describe('parseHtpasswd', () => {
  it('reads user:hash lines, skipping comments, blanks and trailing fields, first line wins', () => {
    const users = parseHtpasswd('# users\n\nann:$apr1$x$y\r\nbob:{SHA}abc=:comment\nann:second\nbroken line\n:nouser\n');
    expect([...users]).toEqual([
      ['ann', '$apr1$x$y'],
      ['bob', '{SHA}abc='],
    ]);
  });
});

describe('normalizeDeploy', () => {
  it('reads baseUrl, the password file, the secrets and the roles', () => {
    expect(
      normalizeDeploy(
        { baseUrl: 'https://example.org/', authentication: { basicAuth: { passwdFile: 'htpasswd' }, oauth2: { clientSecret: 's' }, sessionSecret: '0123456789abcdef', roles: { ann: ['admin'] } } },
        'deploy.json',
      ),
    ).toEqual({ baseUrl: 'https://example.org', passwdFile: 'htpasswd', clientSecret: 's', sessionSecret: '0123456789abcdef', roles: { ann: ['admin'] } });
  });

  it('keeps roles of any identity name, __proto__ and constructor included, as plain data', () => {
    const { roles } = normalizeDeploy(JSON.parse('{"authentication": {"roles": {"__proto__": ["admin"], "constructor": ["editor"]}}}'), 'deploy.json');
    expect(Object.getPrototypeOf(roles)).toBe(Object.prototype);
    expect(Object.entries(roles)).toEqual([['__proto__', ['admin']], ['constructor', ['editor']]]);
  });

  it('lists every problem with the file named', () => {
    const attempt = () => normalizeDeploy({ baseUrl: 'ftp://x', authentication: { sessionSecret: 'short', roles: { ann: 'admin' }, basicAuth: { passwdFile: 3 } } }, 'deploy.json');
    expect(attempt).toThrow(ConfigValidationError);
    expect(attempt).toThrow(/deploy\.json.*baseUrl.*passwdFile.*sessionSecret.*roles\.ann/s);
    expect(() => normalizeDeploy([], 'deploy.json')).toThrow(ConfigValidationError);
  });
});

describe('same-origin checks', () => {
  const own = ['http://reactor.test'];
  it('trusts Sec-Fetch-Site first, then Origin, and refuses a request with neither', () => {
    expect(isSameOrigin({ secFetchSite: 'same-origin' }, own)).toBe(true);
    expect(isSameOrigin({ secFetchSite: 'same-site', origin: 'http://reactor.test' }, own)).toBe(false);
    expect(isSameOrigin({ origin: 'HTTP://REACTOR.TEST' }, own)).toBe(true);
    expect(isSameOrigin({ origin: 'http://evil.test' }, own)).toBe(false);
    expect(isSameOrigin({ origin: 'null' }, own)).toBe(false);
    expect(isSameOrigin({}, own)).toBe(false);
  });

  it('takes a Host for the reactor\'s own only when it is an address, localhost, or a name it was given', () => {
    for (const host of ['127.0.0.1:8864', '10.0.0.5', '[::1]:8864', '[fe80::1]', 'localhost', 'LOCALHOST:80', 'app.localhost:3000', 'reactor.test:8864']) expect([host, isOwnHost(host, ['reactor.test'])]).toEqual([host, true]);
    // A DNS name may be anyone's, rebound to this machine: so may a name that merely ends like one.
    for (const host of ['evil.example:8864', 'evil.example', 'localhost.evil.example', '127.0.0.1.evil.example', 'reactor.test.evil.example', '', ':8864']) expect([host, isOwnHost(host, ['reactor.test'])]).toEqual([host, false]);
    fc.assert(fc.property(fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), (domain, port) => {
      const own = isOwnHost(port === undefined ? domain : `${domain}:${port}`, []);
      expect(own).toBe(domain === 'localhost' || domain.endsWith('.localhost') || /^\d{1,3}(\.\d{1,3}){3}$/.test(domain));
    }));
  });

  it('returns after login only to a path on this server', () => {
    expect(safeReturnPath('/docs/a?x=1', '/')).toBe('/docs/a?x=1');
    // As a Location header can carry it.
    expect(safeReturnPath('/caf\u00e9/\u20ac \ud83d\ude00\u007f', '/')).toBe('/caf%C3%A9/%E2%82%AC%20%F0%9F%98%80%7F');
    expect(safeReturnPath('/a\ud800', '/home/')).toBe('/home/');
    for (const bad of ['//evil.test/', 'https://evil.test/', '/\\evil.test', 'docs', '/a\nb', undefined]) expect(safeReturnPath(bad, '/home/')).toBe('/home/');
    // Counted as a Location carries it: one character of the query can be nine.
    expect(safeReturnPath(`/${'a'.repeat(MAX_RETURN_PATH - 1)}`, '/home/')).toHaveLength(MAX_RETURN_PATH);
    expect(safeReturnPath(`/${'a'.repeat(MAX_RETURN_PATH)}`, '/home/')).toBe('/home/');
    expect(safeReturnPath(`/${'\u20ac'.repeat(Math.ceil(MAX_RETURN_PATH / 9))}`, '/home/')).toBe('/home/');
  });
});

describe('cross-site writes, with strangers\' headers (property)', () => {
  it('never takes a stranger\'s Origin or Sec-Fetch-Site for the reactor\'s own or an allowed one', () => {
    const own = ['http://reactor.test', 'https://reactor.test'];
    const allowed = ['https://app.example'];
    const sites = fc.option(fc.oneof(fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none'), fc.string()), { nil: undefined });
    const origins = fc.option(fc.oneof(fc.webUrl(), fc.string(), fc.constantFrom('null', 'http://reactor.test', 'https://app.example', 'HTTPS://APP.EXAMPLE')), { nil: undefined });
    fc.assert(
      fc.property(fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH'), origins, sites, (method, origin, secFetchSite) => {
        const cross = isCrossSiteWrite(method, { ...(origin !== undefined ? { origin } : {}), ...(secFetchSite !== undefined ? { secFetchSite } : {}) }, own, allowed);
        const lower = origin?.toLowerCase();
        if (lower !== undefined && !own.includes(lower) && !allowed.includes(lower)) expect(cross).toBe(true);
        if (lower === undefined && (secFetchSite === 'cross-site' || secFetchSite === 'same-site')) expect(cross).toBe(true);
        if (lower !== undefined && (own.includes(lower) || allowed.includes(lower))) expect(cross).toBe(false);
        expect(isCrossSiteWrite('GET', { ...(origin !== undefined ? { origin } : {}) }, own, allowed)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads any text as an origin or nothing, never throwing, and reads its own answer back the same', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl(), fc.string(), fc.webUrl().map((url) => url.toUpperCase())), (text) => {
        const origin = normalizeOrigin(text);
        if (origin !== undefined) expect(normalizeOrigin(origin)).toBe(origin);
      }),
      { numRuns: 2000 },
    );
  });
});
