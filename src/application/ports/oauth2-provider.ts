export interface TokenRequest {
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  code: string;
  redirectUri: string;
  codeVerifier: string;
}

/**
 * The two calls the OAuth2 callback makes to the provider. Each is bounded in time;
 * any failure (refusal, 5xx, a body that is not the JSON expected, no answer) is an
 * OAuth2ProviderError whose message names no secret.
 */
export interface OAuth2Provider {
  /** Exchanges an authorization code (with the PKCE verifier) for an access token. */
  exchangeCode(request: TokenRequest): Promise<{ accessToken: string }>;
  /** The userinfo claims for an access token. */
  userinfo(userinfoUrl: string, accessToken: string): Promise<Record<string, unknown>>;
}
