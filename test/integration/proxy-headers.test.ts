import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import fc from 'fast-check';
import { nearestHop, parseForwarded } from '../../src/adapters/http/proxy-headers.js';
import { clientOf } from '../../src/adapters/http/observability/access-log.js';

const requestWith = (headers: Record<string, string | string[]>) => ({ headers, socket: { remoteAddress: '127.0.0.1' } }) as unknown as IncomingMessage;
const pairs = (header: string) => parseForwarded(header).map((element) => Object.fromEntries(element));

describe('the Forwarded header (RFC 7239)', () => {
  it('is read as elements of parameters, names in any case, values as tokens or quoted strings', () => {
    expect(pairs('for=192.0.2.60;proto=http;by=203.0.113.43')).toEqual([{ for: '192.0.2.60', proto: 'http', by: '203.0.113.43' }]);
    expect(pairs('For="[2001:db8:cafe::17]:4711"')).toEqual([{ for: '[2001:db8:cafe::17]:4711' }]);
    expect(pairs('for=192.0.2.43, for=198.51.100.17;PROTO=https')).toEqual([{ for: '192.0.2.43' }, { for: '198.51.100.17', proto: 'https' }]);
    // A comma or semicolon inside quotes is part of the value; a backslash quotes the character after it.
    expect(pairs('for="a,b;c";host="x\\"y", , for=unknown')).toEqual([{ for: 'a,b;c', host: 'x"y' }, { for: 'unknown' }]);
    // Values proxies configured by hand write unquoted, though not tokens.
    expect(pairs('for=2001:db8::1;host=example.org:8443')).toEqual([{ for: '2001:db8::1', host: 'example.org:8443' }]);
  });

  it.each([
    ['for', 'a pair without "="'],
    ['for=a b', 'a value with a space'],
    ['for=a"b";proto=https', 'a stray quote'],
    ['for=1.2.3.4;for=5.6.7.8', 'a parameter twice'],
    ['for="1.2.3.4', 'a quote never closed'],
    ['=1.2.3.4', 'no name'],
  ])('keeps an element that breaks the grammar (%j: %s) as an empty one, so it is still the last', (element) => {
    expect(parseForwarded(`for=198.51.100.1;proto=https, ${element}`).at(-1)).toEqual(new Map());
  });

  it('reads any text in time linear in its length, and never throws', () => {
    const huge = `for="${'\\'.repeat(100_000)}`;
    const start = Date.now();
    expect(parseForwarded(huge)).toEqual([new Map()]);
    expect(parseForwarded(`${'for=1.2.3.4;'.repeat(10_000)}`)).toEqual([new Map()]);
    expect(parseForwarded(`${'"'.repeat(50_001)};,=`.repeat(2))).toEqual([new Map(), new Map()]);
    expect(Date.now() - start).toBeLessThan(1000);
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('"', '\\', ',', ';', '=', ' ', 'f', 'o', 'r', '1', '.', ':', '[', ']') }), (text) => {
      const hop = nearestHop(requestWith({ forwarded: text }));
      return hop.client === undefined || isIP(hop.client) !== 0;
    }));
  });
});

describe('the nearest proxy, with --trust-proxy', () => {
  it.each([
    ['for=203.0.113.7', '203.0.113.7'],
    ['for="203.0.113.7:8080"', '203.0.113.7'],
    ['for="[2001:db8::1]"', '2001:db8::1'],
    ['for="[2001:db8::1]:4711"', '2001:db8::1'],
    ['for="2001:db8::1"', '2001:db8::1'],
    ['for="_hidden:_port"', undefined],
    ['for=unknown', undefined],
    ['for="[203.0.113.7]"', undefined],
    ['for="203.0.113.7:<script>"', undefined],
    ['for="<script>"', undefined],
    // The client's own element comes first; the proxy's, last, names no address.
    ['for=198.51.100.99, proto=https', undefined],
    ['for=198.51.100.99, for=203.0.113.7;proto=https', '203.0.113.7'],
  ])('is the client of Forwarded %j: %j', (forwarded, client) => {
    expect(nearestHop(requestWith({ forwarded })).client).toBe(client);
    expect(clientOf(requestWith({ forwarded }), true)).toBe(client ?? '127.0.0.1');
  });

  it('reads Forwarded sent in several lines as one list', () => {
    expect(nearestHop(requestWith({ forwarded: ['for=198.51.100.99;proto=http', 'for=203.0.113.7;proto=HTTPS'] }))).toEqual({ client: '203.0.113.7', proto: 'https' });
  });

  it('reads X-Forwarded-For and X-Forwarded-Proto when the request carries either, and Forwarded only without them', () => {
    // nginx setting X-Forwarded-For passes a client's own Forwarded on: it must not name the client or the scheme.
    const both = requestWith({ forwarded: 'for=198.51.100.99;proto=https', 'x-forwarded-for': '198.51.100.99, 203.0.113.7' });
    expect(nearestHop(both)).toEqual({ client: '203.0.113.7', proto: undefined });
    expect(nearestHop(requestWith({ forwarded: 'for=198.51.100.99', 'x-forwarded-proto': 'https' }))).toEqual({ client: undefined, proto: 'https' });
    expect(nearestHop(requestWith({ forwarded: 'for=203.0.113.7;proto=https' }))).toEqual({ client: '203.0.113.7', proto: 'https' });
    expect(clientOf(requestWith({ forwarded: 'for=203.0.113.7' }), false)).toBe('127.0.0.1');
  });
});
