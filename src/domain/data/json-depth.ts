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

/**
 * Why an item cannot be stored and read back as it came: it nests deeper than `max`
 * arrays and objects, or holds a number JSON.parse could only read as ±Infinity (`1e400`
 * is beyond the largest double), which JSON.stringify writes, and every reader then
 * reads, as null. Undefined when it can; one walk, as deep as `max` at most.
 */
export function unstorableJson(value: unknown, max: number): 'too deep' | 'infinite number' | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'infinite number';
  if (value === null || typeof value !== 'object') return undefined;
  if (max === 0) return 'too deep';
  if (Array.isArray(value)) {
    for (const child of value) if (child !== null && (typeof child === 'object' || typeof child === 'number')) {
      const problem = unstorableJson(child, max - 1);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (child !== null && (typeof child === 'object' || typeof child === 'number')) {
      const problem = unstorableJson(child, max - 1);
      if (problem) return problem;
    }
  }
  return undefined;
}
