import { SESSION_COOKIE } from '../../../domain/auth/cookie-names.js';
import { identityRequired } from '../../../domain/auth/access.js';
import type { MountAuth } from '../../../application/auth/reactor-auth.js';

type JsonObject = Record<string, unknown>;

/** Who may use a dataset's API, as the auth gate decides it (decideAccess). */
export interface DatasetAccess {
  /** OpenAPI security requirements: any one of the mount's ways to sign in. */
  security: Array<Record<string, string[]>>;
  /** Whether a request without an identity is answered 401. */
  identity: boolean;
  /** Roles of which an identity needs one (403 otherwise). */
  roles: readonly string[];
}

/** The mount's ways to prove an identity, as OpenAPI security schemes: basic auth, and the session cookie its OAuth2 login sets. */
export function securitySchemes(auth: MountAuth | undefined): JsonObject {
  const schemes: JsonObject = {};
  if (auth?.basic) schemes.basicAuth = { type: 'http', scheme: 'basic', description: `Realm ${auth.basic.realm}.` };
  if (auth?.oauth2) schemes.session = { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: `Set by signing in at ${auth.oauth2.loginPath}.` };
  return schemes;
}

/** What the gate asks of a request to the dataset's API: its route's rule, else the package's default. */
export function datasetAccess(auth: MountAuth | undefined, datasetId: string): DatasetAccess {
  const rule = auth?.datasetRules.get(datasetId);
  const identity = identityRequired(rule, auth?.enabled ?? false);
  const security = identity ? Object.keys(securitySchemes(auth)).map((scheme) => ({ [scheme]: [] })) : [];
  return { security, identity, roles: identity ? (rule?.roles ?? []) : [] };
}
