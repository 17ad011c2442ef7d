import { ConfigValidationError } from '../errors.js';
import { isRecord } from './documents.js';
import { AUTHENTICATION_FILE } from './package-paths.js';
import { HTTP_FIELD_VALUE, isHttpUrl } from './field-rules.js';
import { unknownKeyIssues } from './known-keys.js';
import { unreachableSegment } from '../serving/reachable-path.js';

export interface BasicAuthConfig {
  enabled: boolean;
  passwdFile?: string;
  realm?: string;
}

export interface OAuth2Config {
  enabled: boolean;
  provider?: string;
  clientId?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  userinfoUrl?: string;
  redirectPath?: string;
  scopes?: string[];
}

export interface Authentication {
  basicAuth?: BasicAuthConfig;
  oauth2?: OAuth2Config;
}

/** A mount's own sign-in endpoints, below its prefix, beside the callback (redirectPath). */
export const LOGIN_PATH = '/auth/login';
export const LOGOUT_PATH = '/auth/logout';

const OAUTH2_REQUIRED = ['clientId', 'authorizationUrl', 'tokenUrl', 'userinfoUrl'] as const;
const BASIC_AUTH_FIELDS: Record<string, FieldKind> = { enabled: 'boolean', passwdFile: 'string', realm: 'string' };
const OAUTH2_FIELDS: Record<string, FieldKind> = { enabled: 'boolean', provider: 'string', clientId: 'string', authorizationUrl: 'url', tokenUrl: 'url', userinfoUrl: 'url', redirectPath: 'path', scopes: 'strings' };

/**
 * SPEC.md lists every key of the file and allows no others, and the reference
 * implementation writes only those: any other key is refused, since a misspelt one
 * (`"basicauth"`) would otherwise turn authentication off without a word.
 */
export function normalizeAuthentication(raw: unknown): Authentication {
  if (!isRecord(raw)) throw new ConfigValidationError(AUTHENTICATION_FILE, ['must be an object with an "authentication" key']);
  const issues: string[] = [];
  issues.push(...unknownKeyIssues(raw, ['authentication'], ''));
  const body = raw.authentication;
  if (!isRecord(body)) throw new ConfigValidationError(AUTHENTICATION_FILE, [...issues, 'must be an object with an "authentication" key']);
  issues.push(...unknownKeyIssues(body, ['basicAuth', 'oauth2'], 'authentication'));
  const result: Authentication = {};
  if (body.basicAuth !== undefined) {
    const basic = body.basicAuth;
    if (!isRecord(basic)) issues.push('authentication.basicAuth: must be an object');
    else {
      checkFields(basic, 'authentication.basicAuth', BASIC_AUTH_FIELDS, issues);
      result.basicAuth = pick(basic, Object.keys(BASIC_AUTH_FIELDS)) as unknown as BasicAuthConfig;
      result.basicAuth.enabled = basic.enabled === true;
      // Sent in every challenge (`WWW-Authenticate: Basic realm="..."`).
      if (typeof basic.realm === 'string' && !HTTP_FIELD_VALUE.test(basic.realm)) issues.push('authentication.basicAuth.realm: must be text an HTTP header can carry (tab, space, visible ASCII or Latin-1 characters)');
    }
  }
  if (body.oauth2 !== undefined) {
    const oauth = body.oauth2;
    if (!isRecord(oauth)) issues.push('authentication.oauth2: must be an object');
    else {
      checkFields(oauth, 'authentication.oauth2', OAUTH2_FIELDS, issues);
      result.oauth2 = pick(oauth, Object.keys(OAUTH2_FIELDS)) as unknown as OAuth2Config;
      result.oauth2.enabled = oauth.enabled === true;
      // The package's half of the login: the client secret comes from deploy.json, so it is not asked for here.
      if (result.oauth2.enabled) for (const field of OAUTH2_REQUIRED) if (oauth[field] === undefined) issues.push(`authentication.oauth2.${field}: required when oauth2 is enabled`);
      const callbackProblem = typeof oauth.redirectPath === 'string' && oauth.redirectPath.startsWith('/') ? redirectPathProblem(oauth.redirectPath) : undefined;
      if (callbackProblem) issues.push(`authentication.oauth2.redirectPath: ${callbackProblem}`);
    }
  }
  if (issues.length > 0) throw new ConfigValidationError(AUTHENTICATION_FILE, issues);
  return result;
}

type FieldKind = 'boolean' | 'string' | 'url' | 'path' | 'strings';

/** Each field of its kind, and no field beyond them. */
function checkFields(object: Record<string, unknown>, where: string, kinds: Record<string, FieldKind>, issues: string[]): void {
  issues.push(...unknownKeyIssues(object, Object.keys(kinds), where));
  for (const [field, kind] of Object.entries(kinds)) {
    const value = object[field];
    if (value === undefined) continue;
    const ok =
      kind === 'boolean' ? typeof value === 'boolean'
      : kind === 'strings' ? Array.isArray(value) && value.every((v) => typeof v === 'string')
      : kind === 'url' ? isHttpUrl(value)
      : kind === 'path' ? typeof value === 'string' && value.startsWith('/')
      : typeof value === 'string';
    if (!ok) issues.push(`${where}.${field}: must be ${kind === 'strings' ? 'an array of strings' : kind === 'url' ? 'an http(s) URL' : kind === 'path' ? 'a path starting with "/"' : `a ${kind}`}`);
  }
}

/**
 * Why the callback could never be reached, and so no login completed: the provider sends the
 * browser back to it and the reactor matches it as any request, by its decoded path alone;
 * and it must be a path of its own, not the login, the logout or the mount's root (where a
 * login returns by default).
 */
function redirectPathProblem(path: string): string | undefined {
  const trimmed = path.slice(1).replace(/\/$/, '');
  if (trimmed === '') return 'the mount\'s root, where a login returns, cannot be the callback too';
  if (path === LOGIN_PATH || path === LOGOUT_PATH) return `${path} is the mount's own ${path === LOGIN_PATH ? 'login' : 'logout'}; the callback needs a path of its own`;
  const segment = unreachableSegment(trimmed);
  if (segment) return `${segment}, which no request can reach`;
  if (trimmed.includes('%')) return 'a "%": requests are matched decoded, so write /café, not /caf%C3%A9';
  return undefined;
}

function pick(object: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (object[field] !== undefined) picked[field] = object[field];
  return picked;
}

export function isAuthenticationEnabled(authentication: Authentication | undefined): boolean {
  return authentication?.basicAuth?.enabled === true || authentication?.oauth2?.enabled === true;
}
