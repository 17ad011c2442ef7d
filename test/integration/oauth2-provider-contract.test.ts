import { createServer } from 'node:net';
import { FetchOAuth2Provider } from '../../src/adapters/oauth2/fetch-oauth2-provider.js';
import { OAuth2ProviderError } from '../../src/domain/errors.js';
import { describe, expect, it } from '@jest/globals';
import { describeOAuth2ProviderContract } from '../contracts/oauth2-provider.contract.js';
import { ScriptedOAuth2Provider } from '../fakes/scripted-oauth2-provider.js';
import { startProvider } from '../support/oauth2-provider.js';

/** A loopback URL where nothing listens: a port taken, then let go. */
async function unreachable(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describeOAuth2ProviderContract('ScriptedOAuth2Provider (fake)', async () => {
  const provider = new ScriptedOAuth2Provider();
  return {
    provider,
    tokenUrl: provider.tokenUrl,
    userinfoUrl: provider.userinfoUrl,
    clientId: 'reactor-client',
    clientSecret: 'client-secret-never-shown',
    redirectUri: 'https://site.test/auth/callback',
    authorize: async (challenge) => provider.authorize(challenge),
    tellClaims: (claims) => void (provider.claims = claims),
    unreachable: await unreachable(),
  };
});

describeOAuth2ProviderContract('FetchOAuth2Provider against oauth2-mock-server on loopback', async () => {
  const idp = await startProvider();
  const redirectUri = 'https://site.test/auth/callback';
  return {
    provider: new FetchOAuth2Provider(2_000),
    tokenUrl: `${idp.url}/token`,
    userinfoUrl: `${idp.url}/userinfo`,
    clientId: 'reactor-client',
    clientSecret: 'client-secret-never-shown',
    redirectUri,
    authorize: async (challenge) => {
      const query = new URLSearchParams({ response_type: 'code', client_id: 'reactor-client', redirect_uri: redirectUri, scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
      const answer = await fetch(`${idp.url}/authorize?${query}`, { redirect: 'manual' });
      return new URL(answer.headers.get('location')!).searchParams.get('code')!;
    },
    tellClaims: (claims) => void idp.server.service.once('beforeUserinfo', (userinfo: { body: Record<string, unknown> }) => (userinfo.body = claims)),
    unreachable: await unreachable(),
    dispose: idp.stop,
  };
});

describe('FetchOAuth2Provider against a provider that answers without end', () => {
  it('reads at most 1 MiB of an answer and says so, within its time bound', async () => {
    const { createServer: createHttpServer } = await import('node:http');
    // An endless JSON string, sent as fast as it is read.
    const server = createHttpServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{"access_token":"');
      const more = () => {
        while (response.write('a'.repeat(64 * 1024)));
      };
      response.on('drain', more);
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const provider = new FetchOAuth2Provider(5_000);
      await expect(provider.userinfo(`http://127.0.0.1:${port}/userinfo`, 'token')).rejects.toThrow(/the userinfo endpoint http:\/\/127\.0\.0\.1:\d+\/userinfo answered more than 1 MiB; read no further/);
      await expect(provider.exchangeCode({ tokenUrl: `http://127.0.0.1:${port}/token`, code: 'c', codeVerifier: 'v', clientId: 'id', redirectUri: 'https://site.test/cb' })).rejects.toBeInstanceOf(OAuth2ProviderError);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
