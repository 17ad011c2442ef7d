import type { ServerResponse } from 'node:http';

/**
 * A `Vary` value with `name` added, unless it lists it (or `*`) already: every part of the
 * reactor that makes an answer depend on a request header adds to it, none replaces it.
 */
export function withVary(vary: string | undefined, name: string): string {
  if (vary === undefined || vary.trim() === '') return name;
  return new RegExp(`(^|,)\\s*(${name}|\\*)\\s*(,|$)`, 'i').test(vary) ? vary : `${vary}, ${name}`;
}

/** The answer's `Vary` so far (the cross-site guard's `Origin`, say) with `name` added. */
export function addedVary(response: ServerResponse, name: string): string {
  const set = response.getHeader('vary');
  return withVary(set === undefined ? undefined : String(set), name);
}
