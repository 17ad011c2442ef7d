import { ConfigValidationError } from '../errors.js';
import { defineOwn, isRecord } from '../package/documents.js';
import { isHttpUrl } from '../package/field-rules.js';
import { unknownKeyIssues } from '../package/known-keys.js';

/** deploy.json: the reactor side of authentication, outside every package, where the secrets live. */
export interface DeployConfig {
  baseUrl?: string;
  /** Path of the password file, as written (relative to deploy.json). */
  passwdFile?: string;
  clientSecret?: string;
  sessionSecret?: string;
  /** Identity name (basic-auth user, OAuth2 email or subject) to its roles. */
  roles: Record<string, string[]>;
}

/**
 * Keys SPEC.md lists, and only those: a misspelt one (`"sessionsecret"`, `"authentification"`)
 * would be read as absent, a secret or password file silently replaced by another.
 */
export function normalizeDeploy(raw: unknown, file: string): DeployConfig {
  if (!isRecord(raw)) throw new ConfigValidationError(file, ['must be a JSON object']);
  const issues = unknownKeyIssues(raw, ['baseUrl', 'authentication'], '');
  const config: DeployConfig = { roles: {} };
  if (raw.baseUrl !== undefined) {
    const problem = !isHttpUrl(raw.baseUrl) ? 'must be an http(s) URL' : baseUrlProblem(raw.baseUrl);
    if (problem) issues.push(`baseUrl: ${problem}`);
    else config.baseUrl = (raw.baseUrl as string).replace(/\/+$/, '');
  }
  const auth = raw.authentication;
  if (auth !== undefined && !isRecord(auth)) issues.push('authentication: must be an object');
  else if (auth) {
    issues.push(...unknownKeyIssues(auth, ['basicAuth', 'oauth2', 'sessionSecret', 'roles'], 'authentication'));
    const basic = auth.basicAuth;
    if (isRecord(basic)) issues.push(...unknownKeyIssues(basic, ['passwdFile'], 'authentication.basicAuth'));
    if (basic !== undefined && !(isRecord(basic) && (basic.passwdFile === undefined || isNonEmpty(basic.passwdFile)))) issues.push('authentication.basicAuth.passwdFile: must be a file path');
    else if (isRecord(basic) && isNonEmpty(basic.passwdFile)) config.passwdFile = basic.passwdFile;
    const oauth = auth.oauth2;
    if (isRecord(oauth)) issues.push(...unknownKeyIssues(oauth, ['clientSecret'], 'authentication.oauth2'));
    if (oauth !== undefined && !(isRecord(oauth) && (oauth.clientSecret === undefined || isNonEmpty(oauth.clientSecret)))) issues.push('authentication.oauth2.clientSecret: must be a string');
    else if (isRecord(oauth) && isNonEmpty(oauth.clientSecret)) config.clientSecret = oauth.clientSecret;
    if (auth.sessionSecret !== undefined) {
      // Anything shorter is guessable offline from one signed cookie.
      if (typeof auth.sessionSecret !== 'string' || auth.sessionSecret.length < 16) issues.push('authentication.sessionSecret: must be a string of at least 16 characters');
      else config.sessionSecret = auth.sessionSecret;
    }
    if (auth.roles !== undefined) {
      if (!isRecord(auth.roles)) issues.push('authentication.roles: must map identity names to arrays of roles');
      else
        for (const [name, roles] of Object.entries(auth.roles)) {
          if (Array.isArray(roles) && roles.every((role) => typeof role === 'string')) defineOwn(config.roles, name, roles as string[]);
          else issues.push(`authentication.roles.${name}: must be an array of strings`);
        }
    }
  }
  if (issues.length > 0) throw new ConfigValidationError(file, issues);
  return config;
}

/**
 * What a public address cannot carry: the OAuth2 redirect URI is baseUrl followed by the
 * callback's path, which would land inside a query or a fragment (`https://x?a=1/auth/callback`),
 * and browsers never send the reactor's pages under a user name (Origin has none).
 */
function baseUrlProblem(url: string): string | undefined {
  if (/[?#]/.test(url)) return 'must not carry a query or a fragment (the OAuth2 redirect URI is baseUrl followed by the callback path)';
  if (/^https?:\/\/[^/]*@/i.test(url)) return 'must not carry a user name or password';
  return undefined;
}

function isNonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
