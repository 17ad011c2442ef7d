import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { chmodSync, cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

jest.setTimeout(60_000);

const work = temporaryDirectory('cap-unreadable-');
const site = join(work.path, 'site');
let running: ServeProcess;
// A file's mode does not stop root: the reactor runs as nobody then.
const NOBODY = { uid: 65534, gid: 65534 };

beforeAll(async () => {
  cpSync(EXAMPLE_SITE, site, { recursive: true });
  writeFileSync(join(site, 'content/notes.txt'), 'held in memory');
  // Past what is held in memory: streamed from the file on each request.
  writeFileSync(join(site, 'content/big.txt'), 'a'.repeat(3 * 1024 * 1024));
  chmodSync(work.path, 0o755);
  running = await startServe([site], process.getuid?.() === 0 ? { user: NOBODY } : {});
});
afterAll(async () => {
  await running.stop();
  work.remove();
});

describe('a file of a directory source made unreadable while it is served', () => {
  it.each([
    ['a small file', '/notes.txt', {}],
    ['a large file, streamed', '/big.txt', {}],
    ['a part of a large file', '/big.txt', { Range: 'bytes=5-10' }],
  ])('%s answers 503 SOURCE_UNREADABLE (not a 500, nor a connection closed with no answer), and is served again once readable', async (_case, path, headers) => {
    const file = join(site, 'content', path.slice(1));
    // Served once first: what is known of it then (type, digest) is not read again, only its bytes.
    await (await fetch(`${running.url}${path}`, { headers })).arrayBuffer();
    chmodSync(file, 0o000);
    try {
      const refused = await fetch(`${running.url}${path}`, { headers });
      expect(refused.status).toBe(503);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error).toEqual({ code: 'SOURCE_UNREADABLE', message: `content${path} cannot be read: EACCES: permission denied` });
    } finally {
      chmodSync(file, 0o644);
    }
    const served = await fetch(`${running.url}${path}`, { headers });
    expect(served.status).toBe('Range' in headers ? 206 : 200);
    await served.arrayBuffer();
    expect(running.stderr()).toContain(`reactor: SourceUnreadableError: content${path} cannot be read: EACCES: permission denied`);
  });
});
