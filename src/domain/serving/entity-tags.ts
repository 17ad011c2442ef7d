/**
 * The entity-tag comparisons of RFC 9110 §13.1.1 and §13.1.2, for tags written with their
 * quotes (`"abc"`, `W/"abc"`). A tag may hold a comma, so a list is read tag by tag, not
 * split on commas; anything in it that is not a tag matches nothing.
 */
const TAG = /(W\/)?"[^"]*"/g;

interface ListedTag {
  weak: boolean;
  /** The opaque tag with its quotes, without `W/`. */
  opaque: string;
}

function listedTags(header: string): ListedTag[] {
  return [...header.matchAll(TAG)].map((match) => ({ weak: match[1] !== undefined, opaque: match[0].slice(match[1]?.length ?? 0) }));
}

/**
 * `If-None-Match` against the current representation's tag: weak comparison (`W/"x"`
 * matches `"x"`), and `*` matches any representation that exists.
 */
export function noneMatchHits(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return listedTags(header).some((tag) => tag.opaque === etag);
}

/**
 * `If-Match` against the current item's tag (`undefined` when there is no item): strong
 * comparison, so a weak tag never matches; `*` holds when the item exists.
 */
export function ifMatchHolds(header: string, etag: string | undefined): boolean {
  if (etag === undefined) return false;
  if (header.trim() === '*') return true;
  return listedTags(header).some((tag) => !tag.weak && tag.opaque === etag);
}

/** A request's conditional headers, as sent; an absent one is no condition. */
export interface Preconditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
}

/**
 * What the conditions say of a request (RFC 9110 §13.2.2, entity tags only): `proceed`;
 * `not-modified` (a read whose If-None-Match names a current tag: 304); or the header that
 * failed (412). `current` is the tags of the resource's current representations (one per
 * content coding), undefined when it has none. If-Match is evaluated first.
 */
export function evaluatePreconditions({ ifMatch, ifNoneMatch }: Preconditions, current: readonly string[] | undefined, read: boolean): 'proceed' | 'not-modified' | 'If-Match' | 'If-None-Match' {
  if (ifMatch !== undefined && !(current ?? []).some((etag) => ifMatchHolds(ifMatch, etag))) return 'If-Match';
  if (ifNoneMatch !== undefined && current !== undefined && current.some((etag) => noneMatchHits(ifNoneMatch, etag))) return read ? 'not-modified' : 'If-None-Match';
  return 'proceed';
}
