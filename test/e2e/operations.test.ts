import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { CLI, EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { startServe } from '../support/serve-process.js';

const work = temporaryDirectory('cap-operations-');
afterAll(() => work.remove());

/** A site behind basic auth (ann / ann-password), with its deploy.json. */
function staffSite(): { site: string; deploy: string } {
  const site = join(work.path, 'staff-site');
  mkdirSync(join(site, 'content'), { recursive: true });
  writeFileSync(join(site, 'metadata.json'), JSON.stringify({ name: 'staff', version: '1.0.0', description: 'staff only', guid: 'pkg://example.org/staff', uuid: '2f1d7a52-8f0b-4a53-9d3c-0b4fbd1a8e61' }));
  writeFileSync(join(site, 'content/index.html'), '<p>staff</p>');
  writeFileSync(join(site, 'authentication.json'), JSON.stringify({ authentication: { basicAuth: { enabled: true, realm: 'Staff' } } }));
  // bcrypt of "ann-password" at cost 4 (htpasswd -nbB -C 4 ann ann-password)
  writeFileSync(join(work.path, 'htpasswd'), 'ann:$2y$04$S3KJx/KQRapMqcipLudKJOCcV2XD3n/9EMDFbfcwIcfsEoaZlg2v2\n');
  const deploy = join(work.path, 'deploy.json');
  writeFileSync(deploy, JSON.stringify({ authentication: { basicAuth: { passwdFile: 'htpasswd' } } }));
  return { site, deploy };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('operating a reactor', () => {
  it('GET /metrics is Prometheus text a parser reads: requests by mount, method class and status, latency, bytes, lookups, writes, package validity, process metrics', async () => {
    const running = await startServe([EXAMPLE_SITE, '--quiet']);
    try {
      await fetch(`${running.url}/`);
      await fetch(`${running.url}/missing.html`);
      await fetch(`${running.url}/api/v1/data/articles`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: 'metric', title: 'M', body: 'b' }) });
      const answer = await fetch(`${running.url}/metrics`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await answer.text();
      const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
      const requests = families.get('pkg_http_requests_total')!;
      expect(requests.type).toBe('COUNTER');
      expect(requests.metrics).toEqual(expect.arrayContaining([{ labels: { mount: '/', method: 'read', status: '200' }, value: '1' }, { labels: { mount: '/', method: 'read', status: '404' }, value: '1' }, { labels: { mount: '/', method: 'write', status: '201' }, value: '1' }]));
      const latency = families.get('pkg_http_request_duration_seconds')!;
      expect(latency.type).toBe('HISTOGRAM');
      // This parser folds a labelled histogram into its buckets; its sum and count are read from the text.
      expect(latency.metrics[0]!.buckets).toMatchObject({ '0.0005': expect.any(String), '+Inf': '3' });
      expect(text).toMatch(/^pkg_http_request_duration_seconds_count\{mount="\/"\} 3$/m);
      expect(text).toMatch(/^pkg_http_request_duration_seconds_sum\{mount="\/"\} [0-9.e-]+$/m);
      expect(Number(families.get('pkg_http_response_bytes_total')!.metrics.find((sample) => sample.labels?.status === '200')!.value)).toBeGreaterThan(100);
      expect(families.get('pkg_overlay_writes_total')!.metrics).toEqual([{ labels: { mount: '/' }, value: '1' }]);
      expect(families.get('pkg_package_valid')!.metrics).toEqual([{ labels: { mount: '/', package: 'example-site', version: '1.0.0' }, value: '1' }]);
      expect(families.get('pkg_static_lookups_total')!.type).toBe('COUNTER');
      expect(families.has('process_resident_memory_bytes')).toBe(true);
      expect(running.stdout()).not.toMatch(/GET \/ -> 200/);
    } finally {
      await running.stop();
    }
  });

  it('--log-format json writes one JSON object per request, with latency, client, mount, bytes and the request id it sends as X-Request-Id', async () => {
    const running = await startServe([EXAMPLE_SITE, '--log-format', 'json', '--trust-proxy']);
    try {
      const ids: string[] = [];
      // Plain static reads carry the id in the header array they write, the rest set it before.
      for (const [path, extra] of [['/', {}], ['/css/style.css', { Range: 'bytes=0-3' }], ['/nothing', {}], ['/', { Origin: 'https://elsewhere.example' }]] as const) {
        const answer = await fetch(`${running.url}${path}`, { headers: { 'X-Forwarded-For': '198.51.100.99, 203.0.113.7', ...extra } });
        ids.push(answer.headers.get('x-request-id')!);
      }
      expect(new Set(ids).size).toBe(4);
      expect(ids.every((id) => /^[\w-]+$/.test(id))).toBe(true);
      let lines: Array<Record<string, unknown>> = [];
      for (let i = 0; i < 50 && lines.length < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        lines = running.stdout().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
        lines = lines.filter((line) => line.msg === 'request');
      }
      // Every stdout line is JSON, the start too: a log collector never meets a banner.
      const start = JSON.parse(running.stdout().split('\n')[0]!) as Record<string, unknown>;
      expect(start).toMatchObject({ level: 30, msg: `Reactor listening on ${running.url}`, url: running.url, mounts: [{ prefix: '/', name: 'example-site' }] });
      expect(lines.map((line) => line.reqId)).toEqual(ids);
      expect(lines.map((line) => [line.path, line.status])).toEqual([['/', 200], ['/css/style.css', 206], ['/nothing', 404], ['/', 200]]);
      for (const line of lines) expect(line).toMatchObject({ method: 'GET', client: '203.0.113.7', mount: '/', ms: expect.any(Number), bytes: expect.any(Number), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      // The ring of /package/<name>/logs keeps SPEC.md's line.
      const logs = (await (await fetch(`${running.url}/package/example-site/logs?lines=1`)).json()) as { logs: string[] };
      expect(logs.logs[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z GET \/ -> 200$/);
    } finally {
      await running.stop();
    }
  });

  it('/healthz and /readyz answer without authentication, revealing nothing but ok or what is failing; /metrics stays behind it unless --metrics-public', async () => {
    const { site, deploy } = staffSite();
    const broken = join(work.path, 'broken');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'metadata.json'), '{ not json');
    const running = await startServe([site, broken, '--deploy', deploy, '--store', join(work.path, 'no-such-store')]);
    try {
      expect((await fetch(`${running.url}/`)).status).toBe(401);
      expect((await fetch(`${running.url}/metrics`)).status).toBe(401);
      const live = await fetch(`${running.url}/healthz`);
      expect([live.status, await live.text()]).toEqual([200, 'ok\n']);
      const ready = await fetch(`${running.url}/readyz`);
      // A server path stays on the server: the source is named by its place on the command line.
      expect([ready.status, await ready.text()]).toEqual([503, 'not ready: source 2, store\n']);
    } finally {
      await running.stop();
    }
    const open = await startServe([site, '--deploy', deploy, '--metrics-public']);
    try {
      expect((await fetch(`${open.url}/metrics`)).status).toBe(200);
      const ready = await fetch(`${open.url}/readyz`);
      expect([ready.status, await ready.text()]).toEqual([200, 'ok\n']);
    } finally {
      await open.stop();
    }
  });

  it('listens on PORT and HOST from the environment when the flags are absent', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, 'reactor', 'serve', EXAMPLE_SITE], { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      for (let i = 0; i < 100 && !out.includes('listening'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(out).toContain(`Reactor listening on http://127.0.0.1:${port}`);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('a stop finishes the requests in flight: a write whose body arrives after SIGTERM is answered 201, then the reactor exits 0', async () => {
    const running = await startServe([EXAMPLE_SITE]);
    const { port } = new URL(running.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const body = JSON.stringify({ id: 'in-flight', title: 'T', body: 'b' });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.write(`POST /api/v1/data/articles HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = running.stop('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write(body);
    expect(await exited).toBe(0);
    expect(answer).toMatch(/^HTTP\/1\.1 201 Created/);
    socket.destroy();
  });
});
