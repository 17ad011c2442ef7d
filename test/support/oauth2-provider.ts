import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Server } from 'oauth2-mock-server';
import request from 'supertest';
import type { App } from 'supertest/types.js';

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

/** The cookies a response sets, by name: value and attributes. */
export function setCookies(response: request.Response): Map<string, { value: string; attributes: string }> {
  const cookies = new Map<string, { value: string; attributes: string }>();
  const header = response.headers['set-cookie'] as unknown as string[] | undefined;
  for (const line of header ?? []) {
    const [pair, ...attributes] = line.split('; ');
    const equals = pair!.indexOf('=');
    cookies.set(pair!.slice(0, equals), { value: decodeURIComponent(pair!.slice(equals + 1)), attributes: attributes.join('; ') });
  }
  return cookies;
}

/** /auth/login, then the provider's /authorize: the callback path with its query, and the state cookie. */
export async function startLoginAt(http: App, returnTo = '/admin.html'): Promise<{ callback: string; stateCookie: string; authorize: URL }> {
  const login = await request(http).get(`/auth/login?returnTo=${encodeURIComponent(returnTo)}`).expect(302);
  const authorize = new URL(login.headers.location!);
  const stateCookie = setCookies(login).get('pkg_oauth_state')!.value;
  const answer = await fetch(authorize, { redirect: 'manual' });
  const back = new URL(answer.headers.get('location')!);
  return { callback: `${back.pathname}${back.search}`, stateCookie, authorize };
}

/** A whole login through the reactor and the provider: the session cookie's value. */
export async function signInAt(http: App): Promise<string> {
  const { callback, stateCookie } = await startLoginAt(http);
  const done = await request(http).get(callback).set('Cookie', `pkg_oauth_state=${stateCookie}`).expect(302);
  return setCookies(done).get('pkg_session')!.value;
}

