import { decideAccess, type AccessDecision, type Identity } from '../../domain/auth/access.js';
import type { RouteTable, RouteTarget } from '../../domain/serving/route-table.js';
import type { MountAuth } from './reactor-auth.js';

/**
 * Whether an identity (or none) may use a dataset's API: the rule of its route, else the
 * mount's default. The one decision behind the data API, GraphQL's resolvers and every
 * description of the datasets, so none of them shows what another refuses.
 */
export function datasetDecision(auth: MountAuth | undefined, datasetId: string, identity: Identity | undefined): AccessDecision {
  return decideAccess(auth?.datasetRules.get(datasetId), auth?.enabled ?? false, identity);
}

/** The datasets of a mount one requester may read, of those a description would show. */
export interface DatasetView {
  readable: ReadonlySet<string>;
  /**
   * Equal for equal sets, whoever asks: what is built for a view (an OpenAPI document, a
   * GraphQL schema) is built once per key, not per request nor per identity.
   */
  key: string;
  /** When none is readable: 401 if an identity could open one, else 403. */
  refusal?: Exclude<AccessDecision, 'allow'>;
}

/** The key of a view that holds every dataset: the only one a mount without rules has. */
export const WHOLE_VIEW_KEY = '*';

/** The view of `ids` an identity has at a mount; every one of them where the mount has no authentication and no rules. */
export function datasetView(auth: MountAuth | undefined, ids: readonly string[], identity: Identity | undefined): DatasetView {
  if (!auth) return { readable: new Set(ids), key: WHOLE_VIEW_KEY };
  const readable = new Set<string>();
  let refusal: Exclude<AccessDecision, 'allow'> = 'forbidden';
  for (const id of ids) {
    const decision = datasetDecision(auth, id, identity);
    if (decision === 'allow') readable.add(id);
    else if (decision === 'unauthenticated') refusal = decision;
  }
  if (readable.size === ids.length) return { readable, key: WHOLE_VIEW_KEY };
  return { readable, key: JSON.stringify([...readable]), ...(readable.size === 0 ? { refusal } : {}) };
}

/**
 * Whether an identity may use a path of a mount, for a listing of its routes: the rule the
 * gate holds the path to, and for a route to a dataset that dataset's own as well (a laxer
 * second route to it opens nothing). What it may not use, it is not shown.
 */
export function routeReach(auth: MountAuth, routes: RouteTable, identity: Identity | undefined): (path: string, target?: RouteTarget) => boolean {
  return (path, target) => (target?.kind !== 'dataset' || datasetDecision(auth, target.dataset, identity) === 'allow') && decideAccess(routes.ruleOf(path), auth.enabled, identity) === 'allow';
}
