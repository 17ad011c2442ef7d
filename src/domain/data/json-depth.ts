/**
 * How deep an item may nest. Real items nest a few levels; 20,000 levels exhaust the
 * stack of whatever walks them next (schema checks, serialising the log line).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a parsed JSON value nests deeper than `max` arrays and objects. The walk
 * descends at most `max` levels before it answers, so any depth is safe to ask about; it
 * recurses rather than keeping a stack of its own, which costs a fifth as much on a
 * dataset of many shallow items.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  if (Array.isArray(value)) {
    for (const child of value) if (child !== null && typeof child === 'object' && nestsDeeperThan(child, max - 1)) return true;
    return false;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (child !== null && typeof child === 'object' && nestsDeeperThan(child, max - 1)) return true;
  }
  return false;
}
