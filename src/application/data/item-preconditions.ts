import { PreconditionFailedError } from '../../domain/errors.js';
import { evaluatePreconditions, type Preconditions } from '../../domain/serving/entity-tags.js';

/** A write's conditional headers, and how the tags they list are computed: the item's tag as it is served. */
export interface ItemPreconditions extends Preconditions {
  etagOf(item: unknown): string;
}

/**
 * Refuses the write unless the item as it is now, in the write queue (`undefined`: none),
 * meets the conditions: If-Match names one of its tags, If-None-Match none. Checked there,
 * not before queueing, so of two writes naming one tag only the first can pass.
 */
export function checkItemPreconditions(conditions: ItemPreconditions | undefined, current: unknown, item: string, dataset: string): void {
  if (conditions === undefined) return;
  const failed = evaluatePreconditions(conditions, current === undefined ? undefined : [conditions.etagOf(current)], false);
  if (failed === 'proceed') return;
  throw new PreconditionFailedError(
    failed === 'If-None-Match'
      ? `item ${item} of dataset ${dataset} exists with a tag If-None-Match names`
      : current === undefined
        ? `no item ${item} in dataset ${dataset}: If-Match needs one`
        : `item ${item} of dataset ${dataset} has changed: If-Match names none of its entity tags`,
  );
}
