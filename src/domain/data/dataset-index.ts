import { utf8Length } from '../package/package-paths.js';
import { itemIdOf, type Item } from './item-id.js';
import type { Operation } from './operation-log.js';

/**
 * A dataset's items by id, in collection order: the base items in file order, then
 * created items in the order they were written. A replace keeps its item's place.
 * Folding the overlay log into it at load means reads never replay the log.
 */
export class DatasetIndex {
  private readonly items = new Map<string, unknown>();
  private version = 0;
  private listed?: unknown[];
  /** The items' bytes in the collection's JSON, once `bytes` was asked for: each applied operation moves it from then on. */
  private counted?: number;

  /**
   * Base items whose id an earlier item already has (its `id`, or its position when it has
   * none): the first keeps the id, as a lookup would find it, so these are neither listed
   * nor addressable. Positions are 1-based, as an item without an id is named.
   */
  readonly shadowed: Array<{ id: string; position: number }> = [];

  constructor(base: readonly unknown[]) {
    base.forEach((item, index) => {
      const id = itemIdOf(item, index);
      if (this.items.has(id)) this.shadowed.push({ id, position: index + 1 });
      else this.items.set(id, item);
    });
  }

  /** `change`: what the operation adds to `bytes`, when the writer measured it already. */
  apply(operation: Operation, change?: number): void {
    if (this.counted !== undefined) this.counted += change ?? bytesChange(operation, this.items.get(operation.id));
    if (operation.op === 'delete') this.items.delete(operation.id);
    else this.items.set(operation.id, operation.item);
    this.version++;
    this.listed = undefined;
  }

  get(id: string): unknown {
    return this.items.get(id);
  }

  has(id: string): boolean {
    return this.items.has(id);
  }

  get size(): number {
    return this.items.size;
  }

  /** Changes with every applied operation: a cache of the collection is good while it holds. */
  get generation(): number {
    return this.version;
  }

  /**
   * The collection's JSON in UTF-8 bytes: counted once, every item serialized, then kept
   * by each operation, so a write is weighed without serializing the collection.
   */
  get bytes(): number {
    if (this.counted === undefined) {
      let counted = 0;
      for (const item of this.items.values()) counted += itemBytes(item);
      this.counted = counted;
    }
    // "[" and the items, each with the comma after it, the last one's being "]".
    return Math.max(2, this.counted + 1);
  }

  /** `[id, item]` pairs in collection order. */
  entries(): Array<[string, unknown]> {
    return [...this.items.entries()];
  }

  /** The collection, built once per generation. */
  list(): readonly unknown[] {
    return (this.listed ??= [...this.items.values()]);
  }
}

/** An item's bytes in the collection's JSON (`json`: the item serialized, when it is at hand), with the comma after it. */
export function itemBytes(item: unknown, json = JSON.stringify(item)): number {
  return utf8Length(json) + 1;
}

/** How many bytes an operation adds to the collection's JSON (negative when it takes some away), `before` the item it replaces or removes. */
export function bytesChange(operation: Operation, before: unknown, json?: string): number {
  return (operation.op === 'delete' ? 0 : itemBytes(operation.item, json)) - (before === undefined ? 0 : itemBytes(before));
}

/** What to tell an author of shadowed items: which, and the fix. */
export function describeShadowed(file: string, shadowed: ReadonlyArray<{ id: string; position: number }>): string {
  const listed = shadowed.slice(0, 5).map(({ id, position }) => `item ${position} (id ${JSON.stringify(id)})`).join(', ');
  return `${file}: ${shadowed.length} ${shadowed.length === 1 ? 'item has' : 'items have'} the id of an earlier item and ${shadowed.length === 1 ? 'is' : 'are'} not served: ${listed}${shadowed.length > 5 ? ', ...' : ''}; give each item an id of its own`;
}

/** A new item's id when the client gives none: the first number from `from` that `taken` does not hold. */
export function nextFreeId(taken: (id: string) => boolean, from: number): number {
  let candidate = from;
  while (taken(String(candidate))) candidate++;
  return candidate;
}

export type { Item };
