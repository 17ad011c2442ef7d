import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { OAuth2Provider, TokenRequest } from '../../src/application/ports/oauth2-provider.js';
import { OAuth2ProviderError } from '../../src/domain/errors.js';
import { eachSubject, type Subject } from './subject.js';

export interface OAuth2ProviderSubject {
  provider: OAuth2Provider;
  tokenUrl: string;
  userinfoUrl: string;
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
  /** What a browser's visit to the authorization endpoint gives: a code bound to this S256 challenge. */
  authorize(challenge: string): Promise<string>;
  /** Has the provider tell these claims about the user at the next userinfo call. */
  tellClaims(claims: Record<string, unknown>): void;
  /** A URL where nothing answers. */
  unreachable: string;
}

/** A PKCE verifier as RFC 7636 spells one, and its S256 challenge. */
function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The promises of the OAuth2Provider port (src/application/ports/oauth2-provider.ts). */
export function describeOAuth2ProviderContract(name: string, makeSubject: () => Promise<Subject<OAuth2ProviderSubject>> | Subject<OAuth2ProviderSubject>): void {
  describe(`${name} keeps the OAuth2Provider contract`, () => {
    const subject = eachSubject(makeSubject);
    const tokenRequest = (code: string, codeVerifier: string, tokenUrl = subject().tokenUrl): TokenRequest => {
      const { clientId, clientSecret, redirectUri } = subject();
      return { tokenUrl, clientId, ...(clientSecret === undefined ? {} : { clientSecret }), code, redirectUri, codeVerifier };
    };
    /** The failure a call ends in, checked to be an OAuth2ProviderError that names none of the secrets. */
    async function refusal(call: Promise<unknown>, secrets: string[]): Promise<OAuth2ProviderError> {
      const failure = await call.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(OAuth2ProviderError);
      const message = (failure as Error).message;
      for (const secret of [...secrets, subject().clientSecret].filter((value): value is string => value !== undefined)) expect(message).not.toContain(secret);
      return failure as OAuth2ProviderError;
    }

    it('exchanges a code with the verifier of its challenge for an access token, and userinfo tells the claims for it', async () => {
      const { verifier, challenge } = pkce();
      const code = await subject().authorize(challenge);
      const { accessToken } = await subject().provider.exchangeCode(tokenRequest(code, verifier));
      expect(accessToken).toEqual(expect.any(String));
      expect(accessToken).not.toBe('');
      const claims = { sub: 'jo-subject', email: 'jo@example.org', email_verified: true, roles: ['editor', 3] };
      subject().tellClaims(claims);
      expect(await subject().provider.userinfo(subject().userinfoUrl, accessToken)).toEqual(claims);
    });

    it('refuses a verifier that is not the one of the code\'s challenge', async () => {
      const { challenge } = pkce();
      const code = await subject().authorize(challenge);
      const other = pkce().verifier;
      await refusal(subject().provider.exchangeCode(tokenRequest(code, other)), [code, other]);
    });

    it('takes a code once, and no code it did not give', async () => {
      const { verifier, challenge } = pkce();
      const code = await subject().authorize(challenge);
      await subject().provider.exchangeCode(tokenRequest(code, verifier));
      await refusal(subject().provider.exchangeCode(tokenRequest(code, verifier)), [code, verifier]);
      await refusal(subject().provider.exchangeCode(tokenRequest('made-up-code', verifier)), ['made-up-code', verifier]);
    });

    it('fails with OAuth2ProviderError where nothing answers', async () => {
      const { verifier, challenge } = pkce();
      const code = await subject().authorize(challenge);
      await refusal(subject().provider.exchangeCode(tokenRequest(code, verifier, `${subject().unreachable}/token`)), [code, verifier]);
      await refusal(subject().provider.userinfo(`${subject().unreachable}/userinfo`, 'token-never-shown'), ['token-never-shown']);
    });
  });
}
