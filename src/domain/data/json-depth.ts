/**
 * How deep an item may nest. Real items nest a few levels; 20,000 levels exhaust the
 * stack of whatever walks them next (schema checks, serialising the log line).
 */
export const MAX_JSON_DEPTH = 64;

/** Whether a parsed JSON value nests deeper than `max` arrays and objects; walked without recursion, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
