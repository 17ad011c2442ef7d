import { OAuth2ProviderError } from '../../domain/errors.js';
import type { OAuth2Provider, TokenRequest } from '../../application/ports/oauth2-provider.js';

/** How long one call to the provider may take before the login fails with 502. */
export const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;

/** The most a provider's answer may hold: a token or a user's claims take a few kilobytes; more is read no further. */
export const MAX_PROVIDER_ANSWER_BYTES = 1024 * 1024;

/**
 * The provider calls over Node's fetch. The client authenticates at the token endpoint
 * with HTTP Basic (client_secret_basic, the method every provider must support) and
 * proves the login with the PKCE verifier. Messages carry the endpoint and the status,
 * never a secret, a token or the provider's body.
 */
export class FetchOAuth2Provider implements OAuth2Provider {
  constructor(private readonly timeoutMs = DEFAULT_PROVIDER_TIMEOUT_MS) {}

  async exchangeCode(request: TokenRequest): Promise<{ accessToken: string }> {
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: request.code, redirect_uri: request.redirectUri, code_verifier: request.codeVerifier, client_id: request.clientId });
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
    if (request.clientSecret !== undefined) headers.Authorization = `Basic ${Buffer.from(`${formEncode(request.clientId)}:${formEncode(request.clientSecret)}`).toString('base64')}`;
    const body = await this.call('token endpoint', request.tokenUrl, { method: 'POST', headers, body: form.toString() });
    if (typeof body.access_token !== 'string' || body.access_token === '') throw new OAuth2ProviderError('the token endpoint answered without an access_token');
    return { accessToken: body.access_token };
  }

  userinfo(userinfoUrl: string, accessToken: string): Promise<Record<string, unknown>> {
    return this.call('userinfo endpoint', userinfoUrl, { method: 'GET', headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' } });
  }

  private async call(what: string, url: string, init: RequestInit): Promise<Record<string, unknown>> {
    const where = `${what} ${redacted(url)}`;
    let response: Response;
    let text: string;
    try {
      // The one signal bounds the answer and the body together: a provider that stalls mid-body fails too.
      const signal = AbortSignal.timeout(this.timeoutMs);
      response = await fetch(url, { ...init, redirect: 'error', signal });
      text = await boundedText(response, where);
    } catch (error) {
      if (error instanceof OAuth2ProviderError) throw error;
      const timedOut = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError';
      throw new OAuth2ProviderError(timedOut ? `the ${where} did not answer within ${this.timeoutMs} ms` : `the ${where} cannot be reached`);
    }
    if (!response.ok) throw new OAuth2ProviderError(`the ${where} answered ${response.status}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OAuth2ProviderError(`the ${where} answered something other than a JSON object`);
    return body as Record<string, unknown>;
  }
}

/** The body as text, read only up to MAX_PROVIDER_ANSWER_BYTES; `where` names the endpoint when it is more. */
async function boundedText(response: Response, where: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
    size += read.value.length;
    if (size > MAX_PROVIDER_ANSWER_BYTES) {
      await reader!.cancel();
      throw new OAuth2ProviderError(`the ${where} answered more than ${MAX_PROVIDER_ANSWER_BYTES / 1024 / 1024} MiB; read no further`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** RFC 6749 2.3.1: the Basic credentials are form-encoded first. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'URL';
  }
}
