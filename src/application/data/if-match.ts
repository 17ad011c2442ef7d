import { PreconditionFailedError } from '../../domain/errors.js';
import { ifMatchHolds } from '../../domain/serving/entity-tags.js';

/** A write's `If-Match`, and how the tags it lists are computed: the item's tag as it is served. */
export interface IfMatch {
  /** The header as sent: a list of entity tags, or `*`. */
  header: string;
  etagOf(item: unknown): string;
}

/**
 * Refuses the write unless the item as it is now, in the write queue (`undefined`: none),
 * still has a tag the client named. Checked there, not before queueing, so of two writes
 * naming one tag only the first can pass.
 */
export function checkIfMatch(condition: IfMatch | undefined, current: unknown, item: string, dataset: string): void {
  if (condition === undefined) return;
  if (ifMatchHolds(condition.header, current === undefined ? undefined : condition.etagOf(current))) return;
  throw new PreconditionFailedError(
    current === undefined ? `no item ${item} in dataset ${dataset}: If-Match needs one` : `item ${item} of dataset ${dataset} has changed: If-Match names none of its entity tags`,
  );
}
