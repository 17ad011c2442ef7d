import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { acceptedCodings, preferredEncoding } from '../../src/adapters/http/accept-encoding.js';

describe('Accept-Encoding', () => {
  it('prefers the accepted coding of higher weight, brotli on a tie; q=0 refuses, * covers the rest', () => {
    const cases: Array<[string | undefined, 'br' | 'gzip' | undefined]> = [
      [undefined, undefined],
      ['', undefined],
      ['identity', undefined],
      ['gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['gzip, deflate, br, zstd', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['br;q=0, gzip;q=0', undefined],
      ['*', 'br'],
      ['*;q=0.5, br;q=0', 'gzip'],
      ['gzip;q=bad', undefined],
    ];
    for (const [header, expected] of cases) expect([header, preferredEncoding(header)]).toEqual([header, expected]);
  });

  it('never picks a coding the header refuses or weighs below the other, and lists every accepted coding, best first', () => {
    const codings = fc.constantFrom('br', 'gzip', 'x-gzip', '*', 'identity', 'deflate');
    const weights = fc.option(fc.constantFrom('0', '0.5', '1', 'x'), { nil: undefined });
    fc.assert(
      fc.property(fc.array(fc.tuple(codings, weights)), (parts) => {
        const header = parts.map(([coding, q]) => (q === undefined ? coding : `${coding};q=${q}`)).join(', ');
        // The weights as the rules say: the lowest for a coding named twice, * for one not named.
        const named = new Map<string, number>();
        for (const [coding, q] of parts) {
          const name = coding === 'x-gzip' ? 'gzip' : coding;
          const value = q === undefined ? 1 : q === 'x' ? 0 : Number(q);
          named.set(name, Math.min(named.get(name) ?? 1, value));
        }
        const of = (coding: string) => named.get(coding) ?? named.get('*') ?? 0;
        const chosen = preferredEncoding(header);
        if (chosen === undefined) expect(Math.max(of('br'), of('gzip'))).toBe(0);
        else {
          expect(of(chosen)).toBeGreaterThan(0);
          expect(of(chosen)).toBeGreaterThanOrEqual(of(chosen === 'br' ? 'gzip' : 'br'));
        }
        const listed = acceptedCodings(header);
        expect([...listed].sort()).toEqual((['br', 'gzip'] as const).filter((coding) => of(coding) > 0));
        expect(listed[0]).toBe(chosen);
        if (listed.length === 2) expect(of(listed[0]!)).toBeGreaterThanOrEqual(of(listed[1]!));
      }),
    );
  });
});
