/** Values whose JSON takes at least this much are measured once per question: below it, remembering costs more than walking again. */
const REMEMBERED_LENGTH = 1024;

/**
 * Whether a value's JSON would take more than `max` characters, reckoned from the
 * lengths of its keys, strings and numbers (escapes and multi-byte characters aside,
 * so a lower bound). The walk stops as soon as it passes `max`, and a large subtree
 * met again (one stored item that several aliases of a query answer hold) counts from
 * its first walk, so asking about a value far larger than `max` costs about `max` at most.
 */
export function jsonLongerThan(value: unknown, max: number): boolean {
  const measured = new Map<object, number>();
  const length = (current: unknown, budget: number): number => {
    if (typeof current === 'string') return current.length + 2;
    if (current === null || current === undefined) return 4;
    if (typeof current !== 'object') return String(current).length;
    const known = measured.get(current);
    if (known !== undefined) return known;
    let sum = 2;
    if (Array.isArray(current)) {
      for (const child of current) if ((sum += length(child, budget - sum) + 1) > budget) return sum;
    } else {
      for (const key in current) if ((sum += key.length + 4 + length((current as Record<string, unknown>)[key], budget - sum)) > budget) return sum;
    }
    if (sum >= REMEMBERED_LENGTH) measured.set(current, sum);
    return sum;
  };
  return length(value, max) > max;
}
