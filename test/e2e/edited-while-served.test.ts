import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { cpSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

jest.setTimeout(60_000);

const work = temporaryDirectory('cap-edited-');
const site = join(work.path, 'site');
let running: ServeProcess;
// One socket for every request: a body longer or shorter than its header would spill into, or stall, the next answer.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  cpSync(EXAMPLE_SITE, site, { recursive: true });
  writeFileSync(join(site, 'content/notes.txt'), 'version one');
  writeFileSync(join(site, 'content/big.txt'), 'a'.repeat(3 * 1024 * 1024));
  running = await startServe([site]);
});
afterAll(async () => {
  agent.destroy();
  await running.stop();
  work.remove();
});

function get(path: string): Promise<{ status: number; length: number; etag: string; body: string; socket: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(`${running.url}${path}`, { agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, length: Number(response.headers['content-length']), etag: String(response.headers.etag), body: Buffer.concat(chunks).toString(), socket: req.socket }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const sha = (text: string) => `"${createHash('sha256').update(text).digest('hex')}"`;

describe('a directory source edited while it is served', () => {
  it.each([
    ['a small file held in memory', '/notes.txt', 'version one', ['version two, which is longer than the first', 'v3']],
    ['a large file that is streamed', '/big.txt', 'a'.repeat(3 * 1024 * 1024), ['b'.repeat(3 * 1024 * 1024 + 1234), 'c'.repeat(2 * 1024 * 1024)]],
  ])('%s: every answer carries the bytes it measured, with the length and ETag of those bytes, on one keep-alive connection', async (_name, path, first, edits) => {
    const file = join(site, 'content', path.slice(1));
    const before = await get(path);
    expect(before).toMatchObject({ status: 200, length: first.length, etag: sha(first) });
    expect(before.body).toBe(first);
    for (const edit of edits) {
      writeFileSync(file, edit);
      const after = await get(path);
      expect(after.socket).toBe(before.socket);
      expect({ status: after.status, length: after.length, bodyLength: after.body.length, etag: after.etag }).toEqual({ status: 200, length: edit.length, bodyLength: edit.length, etag: sha(edit) });
      // The next answer on the same connection is framed right.
      const next = await get('/about');
      expect(next.socket).toBe(before.socket);
      expect(next.status).toBe(200);
      expect(next.body).toMatch(/<html/i);
    }
  });

  it('a file removed, replaced by a folder or by a link out of the package, answers 404 like a path never listed, whether it was read before or not', async () => {
    writeFileSync(join(site, 'content/gone-later.txt'), 'read once, then removed');
    writeFileSync(join(site, 'content/gone-first.txt'), 'never read');
    // Listed when the directory is read, at start.
    await running.stop();
    running = await startServe([site]);
    expect((await get('/gone-later.txt')).status).toBe(200);
    rmSync(join(site, 'content/gone-later.txt'));
    rmSync(join(site, 'content/gone-first.txt'));
    rmSync(join(site, 'content/about.html'));
    mkdirSync(join(site, 'content/about.html'));
    // Swapped for a link out of the package by whoever may write the content.
    writeFileSync(join(work.path, 'secret.txt'), 'not for the web');
    rmSync(join(site, 'content/notes.txt'));
    symlinkSync(join(work.path, 'secret.txt'), join(site, 'content/notes.txt'));
    for (const path of ['/gone-later.txt', '/gone-first.txt', '/about.html', '/about', '/notes.txt']) {
      const answer = await get(path);
      expect([path, answer.status, JSON.parse(answer.body).error.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect((await get('/index.html')).status).toBe(200);
    expect(running.stderr()).not.toMatch(/unexpected error/);
    rmSync(join(site, 'content/notes.txt'));
  });

  it('a save after a file of the package was removed answers 409 naming it, not 500', async () => {
    writeFileSync(join(site, 'content/doomed.txt'), 'here at load');
    const other = await startServe([site]);
    try {
      rmSync(join(site, 'content/doomed.txt'));
      const answer = await fetch(`${other.url}/package/example-site/save`, { method: 'POST' });
      expect(answer.status).toBe(409);
      expect(((await answer.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'SOURCE_NOT_FOUND', message: expect.stringMatching(/content\/doomed\.txt/) });
    } finally {
      await other.stop();
    }
  });

  it('a save after the package\'s .pkg-tombstones was edited into no list of paths answers 409 CONFIG_INVALID, not 500 or a package hiding its letters', async () => {
    const own = join(work.path, 'tombstoned');
    cpSync(EXAMPLE_SITE, own, { recursive: true });
    writeFileSync(join(own, 'content/.pkg-tombstones'), '[]');
    const other = await startServe([own]);
    try {
      // With no tombstone of its own, the overlay would save the edited file as it is: a package that does not load.
      expect((await fetch(`${other.url}/written.txt`, { method: 'PUT', body: 'x' })).status).toBe(200);
      writeFileSync(join(own, 'content/.pkg-tombstones'), '{"a": 1}');
      expect((await fetch(`${other.url}/package/example-site/save`, { method: 'POST' })).status).toBe(409);
      expect((await fetch(`${other.url}/about.html`, { method: 'DELETE' })).status).toBe(204);
      for (const edited of ['{"a": 1}', '"abc"']) {
        writeFileSync(join(own, 'content/.pkg-tombstones'), edited);
        const answer = await fetch(`${other.url}/package/example-site/save`, { method: 'POST' });
        expect(answer.status).toBe(409);
        expect(((await answer.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('content/.pkg-tombstones') });
      }
    } finally {
      await other.stop();
    }
  });

  it('with security.json, a file edited after the eager check at start to bytes it does not list is never served: the package goes out of service', async () => {
    const signed = join(work.path, 'checked');
    expect(runPkg(['package', 'pack', EXAMPLE_SITE, '-o', work.path]).status).toBe(0);
    expect(runPkg(['package', 'unpack', join(work.path, 'example-site-1.0.0.cap'), '-o', signed]).status).toBe(0);
    const checked = await startServe([signed]);
    try {
      const page = async (path: string) => {
        const answer = await fetch(`${checked.url}${path}`);
        return { status: answer.status, body: await answer.text() };
      };
      expect((await page('/about.html')).status).toBe(200);
      writeFileSync(join(signed, 'content/about.html'), '<p>defaced</p>');
      writeFileSync(join(signed, 'content/never-read.txt'), 'not listed');
      for (const path of ['/about.html', '/index.html']) {
        const answer = await page(path);
        expect([path, answer.status, answer.body]).toEqual([path, 503, expect.stringMatching(/PACKAGE_OUT_OF_SERVICE.*checksum mismatch: content\/about\.html/)]);
      }
      expect(await (await fetch(`${checked.url}/readyz`)).text()).toBe('not ready: package example-site\n');
    } finally {
      await checked.stop();
    }
  });

  it('a large file cut short while it is being sent: the answer stops short on a closed connection, the log names the file, and the next request reads it anew', async () => {
    const file = join(site, 'content/shrinking.bin');
    writeFileSync(file, Buffer.alloc(24 * 1024 * 1024, 7));
    // Listed when the directory is read, at start.
    await running.stop();
    running = await startServe([site]);
    const cut = await new Promise<{ received: number; declared: number; aborted: boolean }>((resolve, reject) => {
      const req = request(`${running.url}/shrinking.bin`, (response) => {
        let received = 0;
        let truncated = false;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          // The first bytes are out; the rest is still to be read from the file.
          if (!truncated) {
            truncated = true;
            response.pause();
            truncateSync(file, 1000);
            setTimeout(() => response.resume(), 100);
          }
        });
        const done = () => resolve({ received, declared: Number(response.headers['content-length']), aborted: !response.complete });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      });
      req.on('error', reject);
      req.end();
    });
    expect(cut.declared).toBe(24 * 1024 * 1024);
    expect(cut.aborted).toBe(true);
    expect(cut.received).toBeLessThan(cut.declared);
    const after = await get('/shrinking.bin');
    expect({ status: after.status, length: after.length, bodyLength: after.body.length }).toEqual({ status: 200, length: 1000, bodyLength: 1000 });
    expect(running.stderr()).toMatch(/SourceChangedError: content\/shrinking\.bin shrank while it was being sent/);
    expect(running.stderr()).not.toMatch(/unexpected error|\n\s+at /);
  });
});
