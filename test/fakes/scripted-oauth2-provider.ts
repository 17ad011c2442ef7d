import { createHash, randomBytes } from 'node:crypto';
import type { OAuth2Provider, TokenRequest } from '../../src/application/ports/oauth2-provider.js';
import { OAuth2ProviderError } from '../../src/domain/errors.js';

/**
 * An OAuth2 provider and the client of it in one, for unit tests: `authorize` is what a
 * browser's visit to the authorization endpoint gives (a code bound to the PKCE
 * challenge), the token endpoint takes each code once with the verifier of its
 * challenge, and userinfo answers `claims` for the tokens it issued. Endpoints other than
 * its own do not answer. Every failure is an OAuth2ProviderError naming no secret, as the
 * port promises. Kept honest by test/contracts/oauth2-provider.contract.ts.
 */
export class ScriptedOAuth2Provider implements OAuth2Provider {
  /** Token requests as they came, for assertions. */
  readonly requests: TokenRequest[] = [];
  /** What userinfo tells about the user. */
  claims: Record<string, unknown> = { sub: 'sub-1', email: 'jo@example.org', email_verified: true, roles: ['editor', 3] };
  private readonly codes = new Map<string, string>();
  private readonly tokens = new Set<string>();

  constructor(readonly issuer = 'https://idp.test') {}

  get authorizationUrl(): string {
    return `${this.issuer}/authorize`;
  }
  get tokenUrl(): string {
    return `${this.issuer}/token`;
  }
  get userinfoUrl(): string {
    return `${this.issuer}/userinfo`;
  }

  /** The code the authorization endpoint redirects back with, for an authorization URL or a bare S256 challenge. */
  authorize(request: string | URL): string {
    const challenge = request instanceof URL || /^https?:/.test(request) ? new URL(request).searchParams.get('code_challenge') : request;
    if (!challenge) throw new Error('an authorization request without a PKCE challenge');
    const code = randomBytes(12).toString('base64url');
    this.codes.set(code, challenge);
    return code;
  }

  async exchangeCode(request: TokenRequest): Promise<{ accessToken: string }> {
    this.requests.push(request);
    this.reach('token endpoint', request.tokenUrl, this.tokenUrl);
    const challenge = this.codes.get(request.code);
    this.codes.delete(request.code);
    if (challenge === undefined || createHash('sha256').update(request.codeVerifier).digest('base64url') !== challenge) {
      throw new OAuth2ProviderError(`the token endpoint ${this.tokenUrl} answered 400`);
    }
    const accessToken = randomBytes(16).toString('base64url');
    this.tokens.add(accessToken);
    return { accessToken };
  }

  async userinfo(userinfoUrl: string, accessToken: string): Promise<Record<string, unknown>> {
    this.reach('userinfo endpoint', userinfoUrl, this.userinfoUrl);
    if (!this.tokens.has(accessToken)) throw new OAuth2ProviderError(`the userinfo endpoint ${this.userinfoUrl} answered 401`);
    return structuredClone(this.claims);
  }

  private reach(what: string, url: string, own: string): void {
    if (url !== own) throw new OAuth2ProviderError(`the ${what} ${url.replace(/[?#].*$/, '')} cannot be reached`);
  }
}
