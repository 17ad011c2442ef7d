import { DatasetIndex } from './dataset-index.js';
import { itemIdOf } from './item-id.js';
import type { Operation } from './operation-log.js';

/** One version of an item: as the package ships it (`base`), or as a write left it. */
export interface ItemVersion {
  op: 'base' | Operation['op'];
  /** When the write was made; null for the package's own data and for writes logged before times were recorded. */
  at: string | null;
  /** The item after this version; absent for a delete. */
  item?: unknown;
}

/** Each version of item `id`, oldest first: its base state if the package has it, then every logged write to it. */
export function historyOf(id: string, base: readonly unknown[], operations: readonly Operation[]): ItemVersion[] {
  const versions: ItemVersion[] = [];
  const first = baseVersion(id, base);
  if (first) versions.push(first);
  for (const operation of operations) if (operation.id === id) versions.push(versionOf(operation));
  return versions;
}

/** The item as the package ships it, if it does. */
export function baseVersion(id: string, base: readonly unknown[]): ItemVersion | undefined {
  const index = base.findIndex((item, position) => itemIdOf(item, position) === id);
  return index >= 0 ? { op: 'base', at: null, item: base[index] } : undefined;
}

/** The version a logged write made. */
export function versionOf(operation: Operation): ItemVersion {
  return operation.op === 'delete' ? { op: 'delete', at: operation.at ?? null } : { op: operation.op, at: operation.at ?? null, item: operation.item };
}

/**
 * The dataset as it stood at `time` (milliseconds since the epoch): the base items and
 * every write made at or before it. Writes logged without a time came before any timed
 * one (they were written by versions that kept none), so they always count.
 */
export function stateAt(base: readonly unknown[], operations: readonly Operation[], time: number): DatasetIndex {
  const index = new DatasetIndex(base);
  for (const operation of operations) {
    if (operation.at !== undefined && Date.parse(operation.at) > time) break;
    index.apply(operation);
  }
  return index;
}

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** An RFC 3339 date-time as milliseconds since the epoch; undefined for anything else, a day or hour that does not exist too (Date.parse rolls February 30 over into March). */
export function parseInstant(text: string): number | undefined {
  const parts = RFC_3339.exec(text);
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  // Set field by field: Date.UTC reads years 0-99 as 1900-1999.
  const written = new Date(0);
  written.setUTCFullYear(year, month - 1, day);
  written.setUTCHours(hour, minute, second);
  if (written.getUTCFullYear() !== year || written.getUTCMonth() !== month - 1 || written.getUTCDate() !== day || written.getUTCHours() !== hour || written.getUTCMinutes() !== minute || written.getUTCSeconds() !== second) return undefined;
  if (parts[9] !== undefined && (Number(parts[9]) > 23 || Number(parts[10]) > 59)) return undefined;
  const time = Date.parse(text.replace(' ', 'T'));
  return Number.isNaN(time) ? undefined : time;
}
