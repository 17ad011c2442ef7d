import { MAX_JSON_DEPTH } from '../../domain/data/json-depth.js';
import { ANY_INDEX, ANY_PROPERTY, OTHER_INDEX, OTHER_PROPERTY, schemaGraph, type SchemaNode } from './schema-graph.js';

/**
 * How many subschemas may check one value (an item, or any value inside it). ajv checks
 * every branch of an `anyOf` (and the rest, as it collects all errors): branches that
 * each refer to the next level make 2^levels checks, and a schema of 24 such lines
 * stalled a reactor for minutes on one item.
 */
export const MAX_EVALUATIONS_PER_VALUE = 10_000;

/** Values nest at most this deep: an item's levels, and a data file's list and wrapper around them. */
const DEPTH = MAX_JSON_DEPTH + 2;

/** `if`s nested in `then` or `else` that the bound tells apart; deeper ones count both branches. */
const NESTED_IFS = 8;

/** Work the bound may take before it gives up on a schema as too intricate to bound: a fraction of a second. */
const MAX_STEPS = 2_000_000;

export type EvaluationBound = { kind: 'bounded' } | { kind: 'circular' } | { kind: 'over'; depth: number } | { kind: 'intricate' };

/** Whether a `patternProperties` pattern matches a property name; without one, every pattern is taken to match every name. */
export type NameMatcher = (pattern: string, name: string) => boolean;

/** Why the walk stopped early. */
class Stop {
  constructor(readonly bound: EvaluationBound) {}
}

/**
 * The most subschemas that may check any one value against `schema`, against the limit:
 * evaluations in place (`allOf`, `anyOf`, `$ref`...) multiply along a path, and a member
 * (a property by its name, an array item) is checked by what each checker of its parent
 * applies to that member. Recursion that descends into the value is followed as deep as
 * values nest; recursion that never descends goes round in a circle.
 */
export function evaluationBound(schema: unknown, matches: NameMatcher = () => true): EvaluationBound {
  try {
    const walk = new Walk(matches);
    const root = schemaGraph(schema);
    // Most schemas pass the cheap bound; the exact walk, which follows one member's name through all its checkers at once, is for the rest.
    if (walk.widestFrom(root, 0) <= MAX_EVALUATIONS_PER_VALUE) return { kind: 'bounded' };
    walk.explore(walk.closureOf(root), 0);
    return { kind: 'bounded' };
  } catch (error) {
    if (error instanceof Stop) return error.bound;
    throw error;
  }
}

class Walk {
  private readonly closures = new Map<SchemaNode, Map<SchemaNode, number>>();
  private readonly visiting = new Set<SchemaNode>();
  private readonly seen = new Map<string, number>();
  private readonly ids = new Map<SchemaNode, number>();
  private readonly widest = new Map<SchemaNode, number[]>();
  private readonly certain = new Map<SchemaNode, Map<SchemaNode, number>>();
  private readonly totals = new Map<SchemaNode, number>();
  private readonly below = new Map<SchemaNode, Map<string, number[]>>();
  private readonly matched = new Map<string, boolean>();
  private steps = 0;

  constructor(private readonly matches: NameMatcher) {}

  /** The subschemas that check a value where `node` does, each with how many times. */
  closureOf(node: SchemaNode): Map<SchemaNode, number> {
    const known = this.closures.get(node);
    if (known) return known;
    if (this.visiting.has(node)) throw new Stop({ kind: 'circular' });
    this.visiting.add(node);
    const closure = new Map([[node, 1]]);
    // Both of `then` and `else`: an overcount, for the exact walk, which follows sets of checkers.
    for (const child of [...node.here, ...node.choices.flat()]) add(closure, this.closureOf(child), 1, () => this.step());
    this.visiting.delete(node);
    this.closures.set(node, closure);
    return closure;
  }

  /** The subschemas that check a value wherever `node` does, whichever of `then` or `else` applies; each with how many times. Called after closureOf, which found no circle. */
  private certainOf(node: SchemaNode): Map<SchemaNode, number> {
    let certain = this.certain.get(node);
    if (certain) return certain;
    const closure = this.closureOf(node);
    // Most schemas hold no `if`: their closure is all certain.
    if (![...closure.keys()].some((checker) => checker.choices.length > 0)) certain = closure;
    else {
      certain = new Map([[node, 1]]);
      for (const child of node.here) add(certain, this.certainOf(child), 1, () => this.step());
    }
    this.certain.set(node, certain);
    return certain;
  }

  /** How many subschemas check a value where `node` does, taking the costlier of `then` and `else`. */
  private totalOf(node: SchemaNode): number {
    let total = this.totals.get(node);
    if (total !== undefined) return total;
    total = 0;
    for (const [checker, count] of this.certainOf(node)) total += count * (1 + this.choicesOf(checker, (branch) => this.totalOf(branch)));
    this.totals.set(node, (total = Math.min(MAX_EVALUATIONS_PER_VALUE + 1, total)));
    return total;
  }

  /**
   * widestFrom's bound for the members of one kind of a value `node` checks at `depth`, taking the costlier of `then` and
   * `else`; past a few `if`s nested in branches, both, so that the stack grows with how deep values nest, not times the `if`s.
   */
  private belowOf(node: SchemaNode, member: string, depth: number, nesting: number): number {
    const both = nesting >= NESTED_IFS;
    let below = 0;
    for (const [checker, count] of both ? this.closureOf(node) : this.certainOf(node)) {
      let each = both ? 0 : this.choicesOf(checker, (branch) => this.branchBelow(branch, member, depth, nesting + 1));
      for (const child of this.applied(checker, member)) {
        this.step();
        each += this.widestFrom(child, depth + 1);
      }
      below += count * each;
    }
    return Math.min(MAX_EVALUATIONS_PER_VALUE + 1, below);
  }

  /** belowOf for a `then` or `else`, kept: a chain of `if`s whose branches share what follows would otherwise be walked once per path. */
  private branchBelow(branch: SchemaNode, member: string, depth: number, nesting: number): number {
    let rows = this.below.get(branch);
    if (!rows) this.below.set(branch, (rows = new Map()));
    let row = rows.get(member);
    if (!row) rows.set(member, (row = []));
    return (row[depth] ??= this.belowOf(branch, member, depth, nesting));
  }

  /** The sum, over the `if`s of `node`, of the costlier of its `then` and `else` by `cost`. */
  private choicesOf(node: SchemaNode, cost: (branch: SchemaNode) => number): number {
    let sum = 0;
    for (const branches of node.choices) {
      let most = 0;
      for (const branch of branches) most = Math.max(most, cost(branch));
      sum += most;
    }
    return sum;
  }

  /**
   * At least as many checks as any one value at `depth` or below gets from one check of
   * `node` at `depth`, each checker choosing its members' names apart (as no value can):
   * an upper bound of explore's, in time linear in the schema for each depth.
   */
  widestFrom(node: SchemaNode, depth: number): number {
    let row = this.widest.get(node);
    if (!row) this.widest.set(node, (row = []));
    const known = row[depth];
    if (known !== undefined) return known;
    // closureOf first: it stops at a circle, which totalOf and belowOf would follow for ever.
    const kinds = memberKinds(this.closureOf(node).keys());
    let most = this.totalOf(node);
    if (depth < DEPTH) for (const member of kinds) most = Math.max(most, this.belowOf(node, member, depth, 0));
    row[depth] = Math.min(MAX_EVALUATIONS_PER_VALUE + 1, most);
    return row[depth];
  }

  /** Checks the checkers of one value, then those of each kind of member it may have, down to the deepest value. */
  explore(checkers: Map<SchemaNode, number>, depth: number): void {
    let total = 0;
    for (const count of checkers.values()) total += count;
    if (total > MAX_EVALUATIONS_PER_VALUE) throw new Stop({ kind: 'over', depth });
    if (depth === DEPTH) return;
    const key = [...checkers].map(([node, count]) => `${this.idOf(node)}*${count}`).sort().join(',');
    // The same checkers met again, no shallower: what lies below was explored with as many levels to go.
    if ((this.seen.get(key) ?? Infinity) <= depth) return;
    this.seen.set(key, depth);
    for (const member of memberKinds(checkers.keys())) {
      const below = new Map<SchemaNode, number>();
      for (const [node, count] of checkers) for (const child of this.applied(node, member)) add(below, this.closureOf(child), count, () => this.step());
      if (below.size > 0) this.explore(below, depth + 1);
    }
  }

  /**
   * The subschemas `node` applies to a member of this kind, as ajv does: an item those for every item, and `additionalItems`
   * unless `items` lists its position; a named property those for every property, those of the patterns its name matches,
   * and `additionalProperties` only when it is neither named nor matched. Any other name may match every pattern, or none.
   */
  private applied(node: SchemaNode, member: string): SchemaNode[] {
    const own = node.members.get(member) ?? [];
    if (member.startsWith('i:')) return [...own, ...(node.members.get(ANY_INDEX) ?? []), ...(node.members.has(member) ? [] : (node.members.get(OTHER_INDEX) ?? []))];
    if (member === ANY_INDEX) return [...own, ...(node.members.get(OTHER_INDEX) ?? [])];
    if (member === ANY_PROPERTY) return [...own, ...[...node.patterns.values()].flat(), ...(node.members.get(OTHER_PROPERTY) ?? [])];
    if (!member.startsWith('p:')) return own;
    let claimed = node.members.has(member);
    const other = claimed ? undefined : node.members.get(OTHER_PROPERTY);
    // The usual case, on the bound's hottest path: a name the schema lists or none of its own keywords claims.
    if (node.patterns.size === 0 && !node.members.has(ANY_PROPERTY) && other === undefined) return own;
    const found = [...own, ...(node.members.get(ANY_PROPERTY) ?? [])];
    for (const [pattern, schemas] of node.patterns) {
      if (!this.nameMatches(pattern, member.slice(2))) continue;
      found.push(...schemas);
      claimed = true;
    }
    return claimed ? found : [...found, ...(other ?? [])];
  }

  private nameMatches(pattern: string, name: string): boolean {
    const key = `${pattern}\u0000${name}`;
    let answer = this.matched.get(key);
    if (answer === undefined) {
      this.step();
      this.matched.set(key, (answer = this.matches(pattern, name)));
    }
    return answer;
  }

  private idOf(node: SchemaNode): number {
    let id = this.ids.get(node);
    if (id === undefined) this.ids.set(node, (id = this.ids.size));
    this.step();
    return id;
  }

  private step(): void {
    if (++this.steps > MAX_STEPS) throw new Stop({ kind: 'intricate' });
  }
}

/** The kinds of member the checkers tell apart: each property name or position one names, and any other property, item or property name. */
function memberKinds(checkers: Iterable<SchemaNode>): Set<string> {
  const kinds = new Set<string>();
  for (const node of checkers) {
    for (const key of node.members.keys()) kinds.add(key === OTHER_PROPERTY ? ANY_PROPERTY : key === OTHER_INDEX ? ANY_INDEX : key);
    if (node.patterns.size > 0) kinds.add(ANY_PROPERTY);
  }
  return kinds;
}

/** Adds `times` each of `more` to `into`; counts stop just past the limit, which is all the bound asks of them. */
function add(into: Map<SchemaNode, number>, more: Map<SchemaNode, number>, times: number, step: () => void): void {
  for (const [node, count] of more) {
    step();
    into.set(node, Math.min(MAX_EVALUATIONS_PER_VALUE + 1, (into.get(node) ?? 0) + count * times));
  }
}
