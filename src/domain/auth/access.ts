import type { AccessControl } from '../package/routes.js';

/** Who made a request, once authenticated. */
export interface Identity {
  /** Basic-auth user, or OAuth2 email (else subject). */
  name: string;
  roles: readonly string[];
  /** How it was established: a write proven only by the session cookie must be same-origin. */
  via: 'basic' | 'session';
}

export type AccessDecision = 'allow' | 'unauthenticated' | 'forbidden';

/**
 * SPEC.md's order: authentication first (401), then the route's roles (403). A route's
 * `accessControl` overrides the package default: `authenticationRequired: false` with no
 * roles makes a route public in an authenticated package, and any `accessControl`
 * asks for an identity even where the package enables no authentication. A route that
 * lists roles accepts an identity holding any one of them.
 */
export function decideAccess(rule: AccessControl | undefined, authEnabled: boolean, identity: Identity | undefined): AccessDecision {
  const roles = rule?.roles ?? [];
  if (!identityRequired(rule, authEnabled)) return 'allow';
  if (!identity) return 'unauthenticated';
  if (roles.length > 0 && !roles.some((role) => identity.roles.includes(role))) return 'forbidden';
  return 'allow';
}

/** Roles from deploy.json by every name the identity goes by, plus those the provider claims. */
export function rolesOf(names: readonly string[], assigned: Readonly<Record<string, readonly string[]>>, claimed: readonly string[] = []): string[] {
  const roles = new Set(claimed);
  for (const name of names) for (const role of Object.hasOwn(assigned, name) ? assigned[name]! : []) roles.add(role);
  return [...roles];
}

/** Whether a request needs an identity: the route's rule says so (or lists roles), or, without one, the package enables authentication. */
export function identityRequired(rule: AccessControl | undefined, authEnabled: boolean): boolean {
  return rule ? rule.authenticationRequired !== false || (rule.roles ?? []).length > 0 : authEnabled;
}
