import type { AccessControl } from '../../domain/package/routes.js';
import { normalizeDeploy, type DeployConfig } from '../../domain/auth/deploy-config.js';
import { ConfigValidationError, OutputExistsError, UsageError } from '../../domain/errors.js';
import { LOGIN_PATH, LOGOUT_PATH, isAuthenticationEnabled } from '../../domain/package/authentication.js';
import { AUTHENTICATION_FILE } from '../../domain/package/package-paths.js';
import { decodeUtf8, parseDocument } from '../../domain/package/documents.js';
import { readText } from '../package/package-reader.js';
import { once } from '../shared/bytes.js';
import type { AuthCrypto } from '../ports/auth-crypto.js';
import type { FileWriter } from '../ports/file-writer.js';
import type { LocalFiles } from '../ports/local-files.js';
import type { OAuth2Provider } from '../ports/oauth2-provider.js';
import type { PasswordHashes } from '../ports/password-hashes.js';
import type { ServedPackage } from '../serving/served-package.js';
import { BasicAuthenticator } from './basic-authenticator.js';
import { OAuth2Login } from './oauth2-login.js';
import { FilePasswordTable, fixedPasswordTable } from './password-table.js';
import { Sessions } from './sessions.js';
import type { SessionRevocationStore, SessionRevocations } from '../ports/session-revocations.js';

export interface AuthDependencies {
  files: LocalFiles;
  writer: FileWriter;
  crypto: AuthCrypto;
  passwords: PasswordHashes;
  provider: OAuth2Provider;
}

export const SESSION_SECRET_FILE = 'session-secret';
const DEFAULT_REDIRECT_PATH = '/auth/callback';

/** One mount's authentication: what authentication.json enables, with deploy.json's secrets. */
export interface MountAuth {
  /** Whether every request to the mount needs an identity (unless a route says otherwise). */
  enabled: boolean;
  basic?: { realm: string; authenticator: BasicAuthenticator };
  /** `realm`: the package name, named in the 401's challenge as basic auth's default realm is. */
  oauth2?: { login: OAuth2Login; realm: string; loginPath: string; callbackPath: string; logoutPath: string; audience: string };
  /** Route access rules by dataset id, for the data API paths below a dataset route; those of the package served now (a reload under `--watch` brings its own). */
  datasetRules: ReadonlyMap<string, AccessControl>;
}

export type SignInEndpoint = 'login' | 'callback' | 'logout';

/** A mount's OAuth2 login, callback and logout, by path: none when it has no OAuth2. */
export function signInPaths(auth: MountAuth | undefined): Array<[string, SignInEndpoint]> {
  const oauth2 = auth?.oauth2;
  return oauth2 ? [[oauth2.loginPath, 'login'], [oauth2.callbackPath, 'callback'], [oauth2.logoutPath, 'logout']] : [];
}

/**
 * The reactor's side of authentication: deploy.json (the only place secrets come from),
 * the session secret, and each mount's authenticators. The session secret is deploy.json's,
 * else one generated once and kept as `<workdir>/session-secret` with mode 0600.
 */
export class ReactorAuth {
  private sessionCodec: Sessions | undefined;
  private sessionSecretMade: Promise<string> | undefined;
  /** Keys remembered basic credentials; never leaves the process. */
  private readonly credentialKey: string;

  private constructor(
    readonly deploy: DeployConfig,
    private readonly deployFile: string | undefined,
    private readonly workdir: string | undefined,
    private readonly dependencies: AuthDependencies,
    private readonly revocations: SessionRevocations,
  ) {
    this.credentialKey = dependencies.crypto.random(32);
  }

  /** `revocations`: where logouts are kept, shared with every reactor that shares the overlay store. */
  static async open(deployFile: string | undefined, workdir: string | undefined, dependencies: AuthDependencies, revocations: SessionRevocationStore): Promise<ReactorAuth> {
    let deploy: DeployConfig = { roles: {} };
    if (deployFile !== undefined) {
      const bytes = await dependencies.files.read(deployFile);
      if (bytes === undefined) throw new UsageError(`deploy file ${deployFile} does not exist`);
      deploy = normalizeDeploy(parseDocument(decodeUtf8(bytes, deployFile), deployFile), deployFile);
    }
    return new ReactorAuth(deploy, deployFile, workdir, dependencies, await revocations.open(workdir));
  }

  /** Undefined when the package neither enables authentication nor restricts a route. */
  async forPackage(pkg: ServedPackage, prefix: string): Promise<MountAuth | undefined> {
    const { authentication } = pkg.model;
    let restricted = false;
    for (const target of pkg.routes.restricted ? pkg.routes.targets() : []) if (target.route?.accessControl !== undefined) restricted = true;
    const enabled = isAuthenticationEnabled(authentication);
    if (!enabled && !restricted) return undefined;
    const auth: MountAuth = { enabled, datasetRules: pkg.routes.datasetRules };
    if (authentication?.basicAuth?.enabled) auth.basic = { realm: authentication.basicAuth.realm ?? pkg.name, authenticator: await this.basicFor(pkg) };
    const oauth = authentication?.oauth2;
    if (oauth?.enabled) {
      const base = prefix.slice(0, -1);
      const callbackPath = base + (oauth.redirectPath ?? DEFAULT_REDIRECT_PATH);
      const secret = await this.sessionSecret();
      this.sessionCodec ??= new Sessions(secret, this.dependencies.crypto, this.deploy.roles, this.revocations);
      const login = new OAuth2Login({ config: oauth, clientSecret: this.deploy.clientSecret, callbackPath }, secret, this.dependencies.crypto, this.dependencies.provider, this.revocations);
      // A session belongs to the mount and the provider that issued it: no other mount accepts it.
      const audience = JSON.stringify([prefix, oauth.authorizationUrl, oauth.clientId]);
      auth.oauth2 = { login, realm: pkg.name, loginPath: base + LOGIN_PATH, logoutPath: base + LOGOUT_PATH, callbackPath, audience };
    }
    return auth;
  }

  /** The session cookie's codec, once a mount enables OAuth2 (the only way to get a session). */
  get sessions(): Sessions | undefined {
    return this.sessionCodec;
  }

  private async basicFor(pkg: ServedPackage): Promise<BasicAuthenticator> {
    const { files, passwords, crypto } = this.dependencies;
    let table;
    if (this.deploy.passwdFile !== undefined) table = await FilePasswordTable.open(files.resolve(this.deployFile!, this.deploy.passwdFile), files);
    else {
      const inPackage = pkg.model.authentication?.basicAuth?.passwdFile;
      if (inPackage === undefined || !pkg.source.has(inPackage)) {
        throw new ConfigValidationError(`${pkg.source.location}/${AUTHENTICATION_FILE}`, [
          inPackage === undefined ? 'basicAuth is enabled but no password file is named (deploy.json authentication.basicAuth.passwdFile, or passwdFile here)' : `basicAuth.passwdFile: ${inPackage} is not in the package`,
        ]);
      }
      table = fixedPasswordTable(await readText(pkg.source, inPackage));
    }
    return new BasicAuthenticator(table, passwords, crypto, this.credentialKey, this.deploy.roles);
  }

  private sessionSecret(): Promise<string> {
    this.sessionSecretMade ??= this.readOrMakeSecret();
    return this.sessionSecretMade;
  }

  private async readOrMakeSecret(): Promise<string> {
    if (this.deploy.sessionSecret !== undefined) return this.deploy.sessionSecret;
    if (this.workdir === undefined) return this.dependencies.crypto.random(32);
    const { files, writer, crypto } = this.dependencies;
    const path = `${this.workdir}/${SESSION_SECRET_FILE}`;
    const existing = await files.read(path);
    if (existing !== undefined) return checkedSecret(existing, path);
    const secret = crypto.random(32);
    try {
      await writer.write(path, once(Buffer.from(secret)), { overwrite: false, mode: 0o600 });
      return secret;
    } catch (error) {
      // Another reactor on this workdir made it first: use theirs.
      if (!(error instanceof OutputExistsError)) throw error;
      return checkedSecret((await files.read(path))!, path);
    }
  }
}

function checkedSecret(bytes: Uint8Array, path: string): string {
  const secret = Buffer.from(bytes).toString('utf8').trim();
  if (secret.length < 16) throw new ConfigValidationError(path, ['the session secret must be at least 16 characters; remove the file to have a new one made']);
  return secret;
}
