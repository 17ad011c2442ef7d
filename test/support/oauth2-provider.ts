import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Server } from 'oauth2-mock-server';

/** A real OAuth2/OIDC provider on loopback (oauth2-mock-server): it checks PKCE at the token endpoint. */
export async function startProvider(): Promise<{ server: OAuth2Server; url: string; stop: () => Promise<void> }> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  return { server, url: server.issuer.url!, stop: () => server.stop() };
}

/** A provider endpoint that misbehaves as told: an HTML page, a 500, or no answer at all. */
export async function startBrokenEndpoint(): Promise<{ url: string; mode: { value: 'html' | 'error' | 'hang' }; stop: () => Promise<void> }> {
  const mode = { value: 'html' as 'html' | 'error' | 'hang' };
  const server: Server = createServer((_request, response) => {
    if (mode.value === 'hang') return;
    if (mode.value === 'error') response.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"server_error"}');
    else response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>Sign in</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mode,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
