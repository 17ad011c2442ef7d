/**
 * The values one GraphQL answer may hold, counted as its typed fields resolve. The
 * estimate made before execution sees a list inside an item as one value, since it
 * cannot know how long the list is: twenty aliases of 100 items with lists of 10,000
 * objects held the event loop for 40 seconds and took 4 GB. Here each field counts
 * one, and a list as many more as it has elements (lists in lists too).
 */
export class ValueBudget {
  private spent = 0;

  constructor(private readonly max: number) {}

  /** Whether the answer passed its budget: some of its fields were left null. */
  get exceeded(): boolean {
    return this.spent > this.max;
  }

  /** Counts a field's value; false once the answer is past its budget, when the field answers null instead. */
  spend(value: unknown): boolean {
    if (this.exceeded) return false;
    this.spent += 1 + elements(value, this.max - this.spent);
    return !this.exceeded;
  }
}

/** A list's elements, those of the lists in it included, counted no further than just past `limit`. */
function elements(value: unknown, limit: number): number {
  if (!Array.isArray(value)) return 0;
  let count = value.length;
  for (let i = 0; i < value.length && count <= limit; i++) if (Array.isArray(value[i])) count += elements(value[i], limit - count);
  return count;
}
