import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GotRegistryClient, MAX_INDEX_BYTES } from '../../src/adapters/registry/got-registry-client.js';
import { parseRegistryReference } from '../../src/domain/dependencies/registry-reference.js';
import { FetchError, InvalidRegistryError } from '../../src/domain/errors.js';

// https itself is exercised end to end (nginx, test/e2e/registry-https.test.ts): NODE_EXTRA_CA_CERTS is read only
// at process start. Here a loopback http server, which the client allows, shows retries, redirects, auth and progress.
const payload = new TextEncoder().encode('x'.repeat(100_000));
const entry = { file: 'lib-1.0.0.cap', sha256: createHash('sha256').update(payload).digest('hex'), size: payload.length };
const index = JSON.stringify({ packages: { 'pkg://x/lib': { name: 'lib', versions: { '1.0.0': entry } } } });
let server: Server;
let base: string;
const hits = new Map<string, number>();
const headers: Array<string | undefined> = [];
let handle: (request: IncomingMessage, response: ServerResponse, hit: number) => void;

beforeAll(async () => {
  server = createServer((request, response) => {
    const hit = (hits.get(request.url!) ?? 0) + 1;
    hits.set(request.url!, hit);
    headers.push(request.headers.authorization);
    handle(request, response, hit);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const client = (path = '/', progress: { isTTY?: boolean; write(text: string): unknown } = { isTTY: false, write: () => true }) => {
  const reference = parseRegistryReference(`${base}${path}`);
  if (reference.kind !== 'url') throw new Error('not a URL');
  return new GotRegistryClient(reference, progress);
};
const collect = async (stream: AsyncIterable<Uint8Array>) => {
  let size = 0;
  for await (const chunk of stream) size += chunk.length;
  return size;
};

describe('GotRegistryClient', () => {
  it('retries transient failures of the index and of a download before its first byte', async () => {
    hits.clear();
    handle = (request, response, hit) => {
      if (hit <= 2) return void response.writeHead(503).end();
      response.end(request.url!.endsWith('index.json') ? index : payload);
    };
    const registry = client('/retry/');
    expect(Object.keys((await registry.index()).packages)).toEqual(['pkg://x/lib']);
    expect(await collect(registry.fetch(entry))).toBe(payload.length);
    expect([hits.get('/retry/index.json'), hits.get('/retry/lib-1.0.0.cap')]).toEqual([3, 3]);
  });

  it('gives up after a few tries, with FetchError', async () => {
    hits.clear();
    handle = (_, response) => void response.writeHead(502).end();
    await expect(client('/down/').index()).rejects.toThrow(new FetchError(`cannot read ${base}/down/index.json: HTTP 502 Bad Gateway`));
    expect(hits.get('/down/index.json')).toBe(3);
    await expect(collect(client('/down/').fetch(entry))).rejects.toThrow(FetchError);
  });

  it('does not retry what will not change: a 404 or a 403', async () => {
    hits.clear();
    handle = (request, response) => void response.writeHead(request.url!.includes('forbidden') ? 403 : 404).end();
    await expect(client('/none/').index()).rejects.toThrow(InvalidRegistryError);
    await expect(collect(client('/forbidden/').fetch(entry))).rejects.toThrow(/HTTP 403/);
    expect([hits.get('/none/index.json'), hits.get('/forbidden/lib-1.0.0.cap')]).toEqual([1, 1]);
  });

  it('follows a redirect to loopback http or https, and refuses one to plain http elsewhere', async () => {
    handle = (request, response) => {
      if (request.url === '/old/index.json') return void response.writeHead(301, { Location: `${base}/new/index.json` }).end();
      if (request.url === '/evil/index.json') return void response.writeHead(302, { Location: 'http://registry.example.com/index.json' }).end();
      response.end(index);
    };
    expect(Object.keys((await client('/old/').index()).packages)).toEqual(['pkg://x/lib']);
    await expect(client('/evil/').index()).rejects.toThrow(/refused a redirect to http:\/\/registry\.example\.com/);
  });

  it('sends credentials from the URL as Basic auth, and keeps them out of errors', async () => {
    headers.length = 0;
    handle = (_, response) => void response.writeHead(500).end();
    const reference = parseRegistryReference(`http://reader:pa%40ss@127.0.0.1:${(server.address() as { port: number }).port}/auth/`);
    if (reference.kind !== 'url') throw new Error('not a URL');
    const failure = new GotRegistryClient(reference, { write: () => true }).index().catch((error: Error) => error);
    const error = (await failure) as Error;
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toContain('http://***@127.0.0.1');
    expect(error.message).not.toContain('pa@ss');
    expect(headers[0]).toBe(`Basic ${Buffer.from('reader:pa@ss').toString('base64')}`);
  });

  it('says a download cut off after its 200, or a redirect loop, failed so, and retries a cut before the first byte', async () => {
    hits.clear();
    handle = (request, response, hit) => {
      if (request.url!.startsWith('/loop/')) return void response.writeHead(302, { Location: request.url }).end();
      response.writeHead(200, { 'Content-Length': String(payload.length) });
      if (request.url!.startsWith('/late/') && hit === 1) {
        // Headers, then the connection drops: nothing was had, so it is tried again.
        response.flushHeaders();
        return void setTimeout(() => request.socket.destroy(), 20);
      }
      response.write(payload.subarray(0, 1000));
      setTimeout(() => (request.url!.startsWith('/cut/') ? request.socket.destroy() : response.end(payload.subarray(1000))), 20);
    };
    const cut = (await collect(client('/cut/').fetch(entry)).catch((error: Error) => error)) as Error;
    expect(cut).toBeInstanceOf(FetchError);
    expect(cut.message).toMatch(new RegExp(`^cannot download ${base}/cut/lib-1\\.0\\.0\\.cap: ECONNRESET: `));
    expect(await collect(client('/late/').fetch(entry))).toBe(payload.length);
    expect(hits.get('/late/lib-1.0.0.cap')).toBe(2);
    const loop = (await client('/loop/').index().catch((error: Error) => error)) as Error;
    expect(loop).toBeInstanceOf(FetchError);
    expect(loop.message).toMatch(/: ERR_TOO_MANY_REDIRECTS: /);
    expect(loop.message).not.toMatch(/HTTP 302/);
  });

  it('shows download progress on a terminal, and nothing otherwise', async () => {
    handle = (_, response) => {
      response.writeHead(200, { 'Content-Length': payload.length });
      response.end(payload);
    };
    const written: string[] = [];
    await collect(client('/p/', { isTTY: true, write: (text) => written.push(text) }).fetch(entry));
    expect(written.join('')).toMatch(/lib-1\.0\.0\.cap: 100% of 100000 bytes\n$/);
    const quiet: string[] = [];
    await collect(client('/p/', { isTTY: false, write: (text) => quiet.push(text) }).fetch(entry));
    expect(quiet).toEqual([]);
  });

  it('refuses an index that never ends, or says it is larger than it may be, without reading it all', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    handle = (_, response) => {
      sent = 0;
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{"packages": {');
      // An endless body: the client must stop it, not the server.
      const more = () => {
        while (sent < 1024 * 1024 * 1024 && response.write(chunk)) sent += chunk.length;
        if (!response.destroyed) response.once('drain', more);
      };
      response.on('close', () => response.removeAllListeners('drain'));
      more();
    };
    await expect(client('/endless/').index()).rejects.toThrow(new InvalidRegistryError(`${base}/endless/index.json is larger than ${MAX_INDEX_BYTES / 1024 / 1024} MiB; refused`));
    expect(sent).toBeLessThan(2 * MAX_INDEX_BYTES);
    handle = (_, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(MAX_INDEX_BYTES + 1) });
      response.write('{');
    };
    await expect(client('/declared/').index()).rejects.toThrow(/is larger than 64 MiB; refused/);
  });
});

describe('GotRegistryClient, a download that trickles', () => {
  it('stops a download slower than the floor, however steadily it trickles', async () => {
    let timer: NodeJS.Timeout | undefined;
    handle = (_, response) => {
      response.writeHead(200, { 'Content-Length': String(entry.size) });
      // Ten bytes every 50 ms: each within the socket's idle time, the whole never.
      timer = setInterval(() => response.write('x'.repeat(10)), 50);
      response.on('close', () => clearInterval(timer));
    };
    const reference = parseRegistryReference(`${base}/trickle/`);
    if (reference.kind !== 'url') throw new Error('not a URL');
    const started = Date.now();
    const slow = new GotRegistryClient(reference, { isTTY: false, write: () => true }, { bytes: 1000, withinMs: 400 });
    await expect(collect(slow.fetch(entry))).rejects.toThrow(new FetchError(`cannot download ${base}/trickle/lib-1.0.0.cap: fewer than 1000 bytes came in 0.4 s; stopped`));
    expect(Date.now() - started).toBeLessThan(2000);
    clearInterval(timer);
  });
});

describe('GotRegistryClient, an index that never finishes arriving', () => {
  it('refuses it with InvalidRegistryError once its time is up, without asking again', async () => {
    hits.clear();
    const timers = new Set<NodeJS.Timeout>();
    handle = (_, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{"packages": {');
      // A space every 50 ms: each within the socket's idle time, the whole never.
      const timer = setInterval(() => response.write(' '), 50);
      timers.add(timer);
      response.on('close', () => clearInterval(timer));
    };
    const reference = parseRegistryReference(`${base}/drip/`);
    if (reference.kind !== 'url') throw new Error('not a URL');
    const started = Date.now();
    const slow = new GotRegistryClient(reference, { isTTY: false, write: () => true }, undefined, 500);
    await expect(slow.index()).rejects.toThrow(new InvalidRegistryError(`${base}/drip/index.json was still arriving after 0.5 s; refused`));
    expect(hits.get('/drip/index.json')).toBe(1);
    expect(Date.now() - started).toBeLessThan(1500);
    for (const timer of timers) clearInterval(timer);
  });
});
