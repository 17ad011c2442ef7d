import { describe, expect, it } from '@jest/globals';
import { evaluatePreconditions, ifMatchHolds, noneMatchHits } from '../../../src/domain/serving/entity-tags.js';

describe('entity tags (RFC 9110 §13.1)', () => {
  it('If-None-Match compares weakly: the tag, W/ of it, a list holding it, *', () => {
    for (const header of ['"abc"', 'W/"abc"', '"x", "abc"', '"x",W/"abc"', ' * ']) expect(noneMatchHits(header, '"abc"')).toBe(true);
    for (const header of ['"abcd"', 'abc', '"x", "y"', 'W/"ab"', '']) expect(noneMatchHits(header, '"abc"')).toBe(false);
  });

  it('reads a list tag by tag: a comma inside a tag does not split it', () => {
    expect(noneMatchHits('"a,b"', '"a,b"')).toBe(true);
    expect(noneMatchHits('"a,b"', '"a"')).toBe(false);
    expect(ifMatchHolds('"x", "a,b"', '"a,b"')).toBe(true);
  });

  it('If-Match compares strongly: a weak tag never matches', () => {
    expect(ifMatchHolds('"abc"', '"abc"')).toBe(true);
    expect(ifMatchHolds('"x", "abc"', '"abc"')).toBe(true);
    expect(ifMatchHolds('W/"abc"', '"abc"')).toBe(false);
    expect(ifMatchHolds('"abcd"', '"abc"')).toBe(false);
    expect(ifMatchHolds('abc', '"abc"')).toBe(false);
  });

  it('If-Match: * holds for an item that exists; nothing holds for one that does not', () => {
    expect(ifMatchHolds('*', '"abc"')).toBe(true);
    expect(ifMatchHolds('*', undefined)).toBe(false);
    expect(ifMatchHolds('"abc"', undefined)).toBe(false);
  });
});

describe('evaluatePreconditions (RFC 9110 §13.2.2)', () => {
  const tags = ['"abc"', '"abc-gzip"'];
  it('If-Match fails unless it names a current tag strongly (any of its codings), or is * and something exists', () => {
    expect(evaluatePreconditions({ ifMatch: '"abc-gzip"' }, tags, true)).toBe('proceed');
    expect(evaluatePreconditions({ ifMatch: '*' }, tags, false)).toBe('proceed');
    expect(evaluatePreconditions({ ifMatch: '"x"' }, tags, true)).toBe('If-Match');
    expect(evaluatePreconditions({ ifMatch: 'W/"abc"' }, tags, false)).toBe('If-Match');
    expect(evaluatePreconditions({ ifMatch: '*' }, undefined, false)).toBe('If-Match');
  });

  it('If-None-Match naming a current tag (weakly) or * is 304 for a read, a failure for a write; nothing there passes', () => {
    expect(evaluatePreconditions({ ifNoneMatch: 'W/"abc"' }, tags, true)).toBe('not-modified');
    expect(evaluatePreconditions({ ifNoneMatch: '*' }, tags, false)).toBe('If-None-Match');
    expect(evaluatePreconditions({ ifNoneMatch: '"x"' }, tags, false)).toBe('proceed');
    expect(evaluatePreconditions({ ifNoneMatch: '*' }, undefined, false)).toBe('proceed');
  });

  it('If-Match is evaluated first; no header is no condition', () => {
    expect(evaluatePreconditions({ ifMatch: '"x"', ifNoneMatch: '"x"' }, tags, true)).toBe('If-Match');
    expect(evaluatePreconditions({}, undefined, false)).toBe('proceed');
  });
});
