import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROOT, temporaryDirectory } from '../support/paths.js';
import { freePort, makeCertificates, runNginx } from '../support/nginx-registry.js';
import { startProvider } from '../support/oauth2-provider.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

const work = temporaryDirectory('cap-forwarded-');
let provider: Awaited<ReturnType<typeof startProvider>>;
let reactor: ServeProcess;
let nginx: { stop(): Promise<void> } | undefined;
let port: number;
let ca: string;

/** The README's nginx lines for a proxy that sends `Forwarded`. */
function readmeForwarded(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```nginx\n(proxy_set_header Forwarded [\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md: no nginx block setting Forwarded');
  return block;
}

function get(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const call = httpsRequest({ host: '127.0.0.1', port, path, headers, ca: readFileSync(ca) }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers }));
    });
    call.on('error', reject);
    call.end();
  });
}

beforeAll(async () => {
  provider = await startProvider();
  const site = join(work.path, 'site');
  mkdirSync(join(site, 'content'), { recursive: true });
  writeFileSync(join(site, 'metadata.json'), JSON.stringify({ name: 'sso', version: '1.0.0', description: 'behind a proxy', guid: 'pkg://example.org/sso', uuid: '123e4567-e89b-42d3-a456-426614174000' }));
  writeFileSync(join(site, 'content/index.html'), '<p>home</p>');
  writeFileSync(join(site, 'authentication.json'), JSON.stringify({ authentication: { oauth2: { enabled: true, provider: 'mock', clientId: 'reactor', authorizationUrl: `${provider.url}/authorize`, tokenUrl: `${provider.url}/token`, userinfoUrl: `${provider.url}/userinfo` } } }));
  writeFileSync(join(work.path, 'deploy.json'), JSON.stringify({ authentication: { oauth2: { clientSecret: 'client-secret' } } }));
  reactor = await startServe([site, '--deploy', join(work.path, 'deploy.json'), '--trust-proxy', '--log-format', 'json']);
  const certificates = makeCertificates(work.path);
  ca = certificates.ca;
  port = await freePort();
  nginx = await runNginx(
    `  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${certificates.cert};
    ssl_certificate_key ${certificates.key};
    location / {
      proxy_pass ${reactor.url};
      proxy_set_header Host $http_host;
${readmeForwarded()}
    }
  }`,
    work.path,
    port,
  );
}, 60_000);
afterAll(async () => {
  await nginx?.stop();
  await reactor?.stop();
  await provider?.stop();
  work.remove();
});

describe('a reactor behind nginx sending Forwarded, as the README shows (--trust-proxy)', () => {
  it('starts a login over https and logs nginx\'s client, whatever Forwarded and X-Forwarded-* the client sent', async () => {
    const spoofed = { Forwarded: 'for=198.51.100.66;proto=http', 'X-Forwarded-For': '198.51.100.66', 'X-Forwarded-Proto': 'http' };
    const login = await get('/auth/login', spoofed);
    expect(login.status).toBe(302);
    expect(new URL(login.headers.location as string).searchParams.get('redirect_uri')).toBe(`https://127.0.0.1:${port}/auth/callback`);
    expect((login.headers['set-cookie'] as string[])[0]).toContain('; Secure');
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !line; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      line = reactor.stdout().split('\n').filter((text) => text.includes('"msg":"request"')).map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.path === '/auth/login');
    }
    expect(line).toMatchObject({ status: 302, client: '127.0.0.1' });
  });
});
