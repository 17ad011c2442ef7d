import { identityRequired } from '../auth/access.js';
import { isAuthenticationEnabled, type Authentication } from '../package/authentication.js';
import type { Routes } from '../package/routes.js';

const NAMED = 5;

/**
 * Routes whose rule asks for an identity in a package that enables no way to give one
 * (neither basic auth nor OAuth2): every request to them, and to the files they protect,
 * is answered 401, which no client can get past. Said once, naming the first few.
 */
export function lockedRouteWarning(routes: Routes, authentication: Authentication | undefined): string[] {
  if (isAuthenticationEnabled(authentication)) return [];
  const locked = routes.routes.filter((route) => route.accessControl !== undefined && identityRequired(route.accessControl, false)).map((route) => route.path);
  if (locked.length === 0) return [];
  const named = locked.slice(0, NAMED).join(', ') + (locked.length > NAMED ? ` and ${locked.length - NAMED} more` : '');
  return [`routes ${named} need an identity, but the package enables no authentication (basicAuth or oauth2 in authentication.json): they answer 401 to every request`];
}
