import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { failingServe, startServe, type ServeProcess } from '../support/serve-process.js';
import { corruptDeflatedEntry, readZipEntries, writeZipEntries } from '../support/zip-entries.js';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-verify-lazy-');
const at = (name: string) => join(work.path, name);
let signed: string;
/** The signed package with content/about.html rewritten: a valid archive whose checksum of that file no longer matches. */
let tampered: string;
/** The signed package with another signature.sig: every checksum matches, the signature does not. */
let forged: string;

beforeAll(() => {
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: work.path, stdio: 'pipe' });
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'key.pem']);
  openssl(['req', '-x509', '-new', '-key', 'key.pem', '-subj', '/CN=signer', '-days', '1', '-out', 'cert.pem']);
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'other.pem']);
  openssl(['req', '-x509', '-new', '-key', 'other.pem', '-subj', '/CN=other', '-days', '1', '-out', 'other-cert.pem']);
  expect(runPkg(['package', 'pack', EXAMPLE_SITE, '-o', work.path]).status).toBe(0);
  signed = at('signed.cap');
  expect(runPkg(['package', 'sign', at('example-site-1.0.0.cap'), '--key', at('key.pem'), '--cert', at('cert.pem'), '-o', signed]).status).toBe(0);
  const entries = readZipEntries(signed);
  tampered = at('tampered.cap');
  writeZipEntries(tampered, { ...entries, 'content/about.html': Buffer.from(entries['content/about.html']!.toString().replace('<h1>About</h1>', '<h1>Owned</h1>')) });
  forged = at('forged.cap');
  const signature = Buffer.from(entries['signature.sig']!);
  signature[10]! ^= 0xff;
  writeZipEntries(forged, { ...entries, 'signature.sig': signature });
});
afterAll(() => work.remove());

async function serving(args: string[], check: (running: ServeProcess) => Promise<void>): Promise<ServeProcess> {
  const running = await startServe(args);
  try {
    await check(running);
  } finally {
    expect(await running.stop('SIGTERM')).toBe(0);
  }
  return running;
}

interface Validity {
  package: string;
  valid: boolean;
  reason?: string[];
  signed: boolean;
  signatureValid?: boolean;
}

/** content-validity verifies anew and waits for a pass under way: once it answers, the background pass has finished. */
async function validity(url: string): Promise<Validity> {
  const answer = await fetch(`${url}/api/v1/introspect/content-validity`);
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { contentValidity: Validity[] }).contentValidity[0]!;
}

/** Nothing asks to verify: the background pass runs by itself, and /readyz reads its verdict without hashing. */
async function waitUntilUnready(url: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  while ((await fetch(`${url}/readyz`)).status === 200 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  return (await fetch(`${url}/readyz`)).text();
}

async function refused(url: string, path: string): Promise<string> {
  const answer = await fetch(url + path);
  expect(answer.status).toBe(503);
  const body = (await answer.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('PACKAGE_OUT_OF_SERVICE');
  // Where the package lies on the server is not the client's business.
  expect(body.error.message).not.toContain(work.path);
  return body.error.message;
}

describe('pkg reactor serve --verify lazy', () => {
  it('refuses a tampered file on its first read, and then everything else of the package', async () => {
    const running = await serving([tampered, '--verify', 'lazy'], async ({ url }) => {
      expect(await refused(url, '/about.html')).toMatch(/checksum mismatch: content\/about\.html/);
      const report = await validity(url);
      expect(report.valid).toBe(false);
      expect(report.reason).toContain('checksum mismatch: content/about.html');
      // After the background pass: an untampered entry, a cached one, and the data API alike.
      for (const path of ['/index.html', '/css/style.css', '/api/v1/data/articles', '/about.html']) await refused(url, path);
      expect(((await (await fetch(`${url}/package/example-site/status`)).json()) as { valid: boolean }).valid).toBe(false);
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
    });
    expect(running.stderr()).toMatch(/^warning: package example-site .* is out of service, every request to it answers 503: checksum mismatch: content\/about\.html$/m);
  });

  it('takes the package out of service when the background pass finds a file no request has read', async () => {
    await serving([tampered, '--verify', 'lazy'], async ({ url }) => {
      expect(await waitUntilUnready(url)).toBe('not ready: package example-site\n');
      // An untampered file, never read before: refused for what the pass found elsewhere.
      expect(await refused(url, '/index.html')).toMatch(/checksum mismatch: content\/about\.html/);
      const report = await validity(url);
      expect(report).toMatchObject({ valid: false, signed: true });
      expect(report.reason).toContain('checksum mismatch: content/about.html');
    });
  });

  it('an entry whose deflate stream is corrupt fails verification like a changed one: out of service, said in content-validity', async () => {
    const corrupt = at('corrupt.cap');
    corruptDeflatedEntry(at('example-site-1.0.0.cap'), 'content/about.html', corrupt);
    const running = await serving([corrupt, '--verify', 'lazy'], async ({ url }) => {
      expect(await refused(url, '/about.html')).toMatch(/corrupt entry content\/about\.html/);
      await refused(url, '/index.html');
      const report = await validity(url);
      expect(report).toMatchObject({ valid: false, signed: false });
      expect(report.reason).toEqual([expect.stringMatching(/^corrupt entry content\/about\.html: /)]);
    });
    expect(running.stderr()).toMatch(/out of service, every request to it answers 503: corrupt entry content\/about\.html/);
    expect(running.stderr()).not.toMatch(/unexpected error|\n\s+at /);
  });

  it('without security.json, a corrupt entry answers 503 CORRUPT_ENTRY, in gzip too, and the rest is served', async () => {
    const { 'security.json': _checksums, ...unverified } = readZipEntries(at('example-site-1.0.0.cap'));
    writeZipEntries(at('unverified.cap'), unverified, { deflated: true });
    corruptDeflatedEntry(at('unverified.cap'), 'content/about.html', at('unverified-corrupt.cap'));
    await serving([at('unverified-corrupt.cap')], async ({ url }) => {
      for (const headers of [{}, { 'Accept-Encoding': 'gzip' }] as Array<Record<string, string>>) {
        const answer = await fetch(`${url}/about.html`, { headers });
        expect(answer.status).toBe(503);
        const { error } = (await answer.json()) as { error: { code: string; message: string } };
        expect(error).toEqual({ code: 'CORRUPT_ENTRY', message: expect.stringMatching(/^corrupt entry content\/about\.html: /) });
      }
      expect((await fetch(`${url}/index.html`)).status).toBe(200);
    });
  });

  it('checks the signature in the background pass: a forged signature takes an intact package out of service', async () => {
    await serving([forged, '--verify', 'lazy'], async ({ url }) => {
      const report = await validity(url);
      expect(report).toMatchObject({ valid: false, signed: true, signatureValid: false });
      await refused(url, '/index.html');
    });
  });

  it('checks the signer against --trust in the background pass: another signer takes the package out of service', async () => {
    await serving([signed, '--verify', 'lazy', '--trust', at('other-cert.pem')], async ({ url }) => {
      expect(await waitUntilUnready(url)).toBe('not ready: package example-site\n');
      expect(await refused(url, '/index.html')).toMatch(/different key than the trusted ones/);
    });
  });

  it('serves every file of an intact signed package at once, and the background pass reports it valid', async () => {
    const running = await serving([signed, '--verify', 'lazy'], async ({ url }) => {
      const unpacked = readZipEntries(signed);
      const about = await fetch(`${url}/about.html`);
      expect(about.status).toBe(200);
      expect(Buffer.from(await about.arrayBuffer())).toEqual(unpacked['content/about.html']);
      const range = await fetch(`${url}/css/style.css`, { headers: { Range: 'bytes=0-9' } });
      expect(range.status).toBe(206);
      expect(Buffer.from(await range.arrayBuffer())).toEqual(unpacked['content/css/style.css']!.subarray(0, 10));
      expect(await validity(url)).toMatchObject({ valid: true, signed: true, signatureValid: true });
      for (const path of ['/', '/index.html', '/js/app.js', '/images/logo.png', '/api/v1/data/articles']) expect((await fetch(url + path)).status).toBe(200);
    });
    expect(running.stderr()).not.toMatch(/out of service/);
  });

  it('answers gzip from the archive only with bytes that passed the check', async () => {
    await serving([signed, '--verify', 'lazy'], async ({ url }) => {
      // node:http, not fetch: fetch would decode the body itself.
      const answer = await new Promise<{ status: number; encoding: string | undefined; body: Buffer }>((resolve, reject) =>
        get(`${url}/js/app.js`, { headers: { 'Accept-Encoding': 'gzip' } }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode!, encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }));
        }).on('error', reject),
      );
      expect(answer).toMatchObject({ status: 200, encoding: 'gzip' });
      expect(gunzipSync(answer.body)).toEqual(readZipEntries(signed)['content/js/app.js']);
    });
  });

  it('is also chosen per mount in the mounts file, where eager would refuse the tampered package at start', async () => {
    writeFileSync(at('mounts.json'), JSON.stringify({ mounts: [{ path: '/', source: 'tampered.cap', verify: 'lazy' }] }));
    await serving(['--config', at('mounts.json')], async ({ url }) => {
      await refused(url, '/about.html');
    });
    const eager = await failingServe([tampered]);
    expect(eager.code).toBe(1);
    expect(eager.stderr).toMatch(/IntegrityError.*content\/about\.html/);
  });

  it('rejects an unknown mode, on the command line and in the mounts file', async () => {
    const cli = await failingServe([signed, '--verify', 'sometimes']);
    expect(cli.stderr).toMatch(/verify/);
    writeFileSync(at('bad-mounts.json'), JSON.stringify({ mounts: [{ path: '/', source: 'signed.cap', verify: 'sometimes' }] }));
    const file = await failingServe(['--config', at('bad-mounts.json')]);
    expect(file.stderr).toMatch(/mounts\[0\]\.verify: must be "eager" or "lazy"/);
  });
});
