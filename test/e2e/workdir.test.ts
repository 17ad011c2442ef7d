import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { runPkg } from '../support/run-cli.js';
import { failingServe, startServe, type ServeProcess } from '../support/serve-process.js';

jest.setTimeout(120_000);

const work = temporaryDirectory('cap-workdir-');
const at = (name: string) => join(work.path, name);

/** A copy of the example site named `name`-site, and its workdir `name`. */
function copiedSite(name: string): { site: string; workdir: string } {
  const site = at(`${name}-site`);
  cpSync(EXAMPLE_SITE, site, { recursive: true });
  return { site, workdir: at(name) };
}
afterAll(() => work.remove());

/** Every file below a directory, relative to it. */
const filesBelow = (directory: string): string[] =>
  existsSync(directory) ? readdirSync(directory, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1)) : [];

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const put = (url: string, body: string) => fetch(url, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body });
const ids = async (url: string) => ((await (await fetch(url)).json()) as Array<{ id: string }>).map((item) => item.id);

describe('one overlay per mount of a package', () => {
  let v1: string;
  let v2: string;
  beforeAll(() => {
    v1 = at('v1');
    v2 = at('v2');
    cpSync(EXAMPLE_SITE, v1, { recursive: true });
    cpSync(EXAMPLE_SITE, v2, { recursive: true });
    const metadata = JSON.parse(readFileSync(join(v2, 'metadata.json'), 'utf8'));
    writeFileSync(join(v2, 'metadata.json'), JSON.stringify({ ...metadata, version: '2.0.0' }));
  });

  it('two versions of one package side by side keep every acknowledged write in their own mount, across a clean restart and a SIGKILL', async () => {
    const workdir = at('side-by-side');
    const args = ['--mount', `/v1=${v1}`, '--mount', `/v2=${v2}`, '--workdir', workdir];
    let running: ServeProcess = await startServe(args);
    const written: Record<string, string[]> = { v1: [], v2: [] };
    try {
      for (let round = 0; round < 3; round++) {
        // Interleaved writes, each acknowledged before the next, to both mounts.
        const results = await Promise.all(
          ['v1', 'v2'].flatMap((mount) => [
            post(`${running.url}/${mount}/api/v1/data/articles`, { id: `${mount}-item-${round}`, title: `${mount} ${round}`, body: 'b' }).then((r) => [mount, `${mount}-item-${round}`, r.status] as const),
          ]),
        );
        for (const [mount, id, status] of results) {
          expect(status).toBe(201);
          written[mount]!.push(id);
        }
        expect((await put(`${running.url}/${'v1'}/note-${round}.txt`, `v1 note ${round}`)).status).toBe(200);
      }
      expect(await running.stop()).toBe(0);
      running = await startServe(args);
      expect((await post(`${running.url}/v2/api/v1/data/articles`, { id: 'v2-after-restart', title: 't', body: 'b' })).status).toBe(201);
      written.v2!.push('v2-after-restart');
      expect(await running.stop('SIGKILL')).toBeNull();
      running = await startServe(args);
      for (const mount of ['v1', 'v2']) {
        const other = mount === 'v1' ? 'v2' : 'v1';
        const present = await ids(`${running.url}/${mount}/api/v1/data/articles`);
        expect(present).toEqual(expect.arrayContaining(written[mount]!));
        for (const id of written[other]!) expect(present).not.toContain(id);
      }
      expect(await (await fetch(`${running.url}/v1/note-2.txt`)).text()).toBe('v1 note 2');
      expect((await fetch(`${running.url}/v2/note-2.txt`)).status).toBe(404);
    } finally {
      await running.stop();
    }
    expect(readdirSync(join(workdir, 'overlays')).sort()).toEqual(['v1~example-site', 'v2~example-site']);
  });

  it('a workdir of the older layout (overlays/<name>/) is adopted by the first mount only', async () => {
    const workdir = at('older');
    const legacy = join(workdir, 'overlays/example-site');
    mkdirSync(join(legacy, 'data'), { recursive: true });
    writeFileSync(join(legacy, 'data/articles.log.jsonl'), `${JSON.stringify({ op: 'create', id: 'from-before', item: { id: 'from-before', title: 'Old', body: 'b' } })}\n`);
    const running = await startServe(['--mount', `/v1=${v1}`, '--mount', `/v2=${v2}`, '--workdir', workdir]);
    try {
      expect(await ids(`${running.url}/v1/api/v1/data/articles`)).toContain('from-before');
      expect(await ids(`${running.url}/v2/api/v1/data/articles`)).not.toContain('from-before');
    } finally {
      await running.stop();
    }
  });
});

describe('the workdir belongs to one reactor', () => {
  it('a second reactor on the same --workdir gets a one-line typed error and exit 1; once the first stops, it starts', async () => {
    const workdir = at('locked');
    const first = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    try {
      const second = await failingServe([EXAMPLE_SITE, '--workdir', workdir]);
      expect(second.code).toBe(1);
      expect(second.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^error: WorkdirLockedError: workdir ${workdir} is in use by another reactor \\(pid ${first.child.pid}\\)`))]);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    expect(existsSync(join(workdir, 'reactor.lock'))).toBe(false);
    const again = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    await again.stop();
  });

  it('a lock edited by hand into something else keeps reactors out, naming the file, until it is removed', async () => {
    const workdir = at('garbled');
    mkdirSync(workdir, { recursive: true });
    writeFileSync(join(workdir, 'reactor.lock'), 'garbage');
    const refused = await failingServe([EXAMPLE_SITE, '--workdir', workdir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: WorkdirLockedError: workdir .*garbled holds a reactor\.lock that is not one this tool wrote; if no reactor uses the workdir, remove the file/);
    rmSync(join(workdir, 'reactor.lock'));
    const next = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    expect(await next.stop()).toBe(0);
  });

  it('a --workdir inside a package directory it serves is refused: its saves would pack themselves', async () => {
    const site = at('site-with-workdir');
    cpSync(EXAMPLE_SITE, site, { recursive: true });
    const refused = await failingServe([site, '--workdir', join(site, 'work')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: UsageError: --workdir .*work is inside the package directory .*site-with-workdir/);
  });

  it('a save whose folder cannot be made in the workdir answers 503 OVERLAY naming it, not 500', async () => {
    const workdir = at('saved-blocked');
    const reactor = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    try {
      writeFileSync(join(workdir, 'saved'), 'a file where the folder goes');
      const answer = await fetch(`${reactor.url}/package/example-site/save`, { method: 'POST' });
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'OVERLAY', message: expect.stringContaining(join(workdir, 'saved')) });
    } finally {
      expect(await reactor.stop()).toBe(0);
    }
  });

  it('a lock left by a reactor that died (SIGKILL) does not keep the next one out', async () => {
    const workdir = at('stale');
    const killed = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    expect(await killed.stop('SIGKILL')).toBeNull();
    expect(JSON.parse(readFileSync(join(workdir, 'reactor.lock'), 'utf8'))).toEqual({ pid: killed.child.pid, host: hostname() });
    const next = await startServe([EXAMPLE_SITE, '--workdir', workdir]);
    expect(await next.stop()).toBe(0);
  });
});

describe('what a killed reactor leaves behind', () => {
  it('decrypted plaintext is removed at the next start, kept in a 0700 directory, and gone after a clean stop', async () => {
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', at('key.pem')], { stdio: 'pipe' });
    execFileSync('openssl', ['pkey', '-in', at('key.pem'), '-pubout', '-out', at('pub.pem')], { stdio: 'pipe' });
    expect(runPkg(['package', 'encrypt', EXAMPLE_SITE, '--public-key', at('pub.pem'), '-o', at('sealed.cap')]).status).toBe(0);
    const workdir = at('plaintext');
    const args = [at('sealed.cap'), '--private-key', at('key.pem'), '--workdir', workdir];
    const killed = await startServe(args);
    expect(await killed.stop('SIGKILL')).toBeNull();
    const left = readdirSync(join(workdir, 'decrypted'));
    expect(left).toHaveLength(1);
    const next = await startServe(args);
    try {
      const now = readdirSync(join(workdir, 'decrypted'));
      expect(now).toHaveLength(1);
      expect(now).not.toContain(left[0]);
      expect(statSync(join(workdir, 'decrypted')).mode & 0o777).toBe(0o700);
    } finally {
      expect(await next.stop()).toBe(0);
    }
    expect(readdirSync(join(workdir, 'decrypted'))).toEqual([]);
  });

  it('a hang-up (its terminal closed) removes the decrypted plaintext of a --workdir, as it removes a temporary workdir', async () => {
    const workdir = at('plaintext-hangup');
    const reactor = await startServe([at('sealed.cap'), '--private-key', at('key.pem'), '--workdir', workdir]);
    expect(readdirSync(join(workdir, 'decrypted'))).toHaveLength(1);
    expect(await reactor.stop('SIGHUP')).toBe(129);
    expect(filesBelow(join(workdir, 'decrypted'))).toEqual([]);
  });

  it('the package saved from an encrypted one is plaintext that only the reactor\'s user may read', async () => {
    const workdir = at('plaintext-saved');
    const reactor = await startServe([at('sealed.cap'), '--private-key', at('key.pem'), '--workdir', workdir]);
    try {
      const saved = await fetch(`${reactor.url}/package/example-site/save`, { method: 'POST' });
      expect(saved.status).toBe(200);
      const { path } = (await saved.json()) as { path: string };
      expect(statSync(path).mode & 0o777).toBe(0o600);
    } finally {
      expect(await reactor.stop()).toBe(0);
    }
  });

  it('with --workers, the plaintext of a worker killed while it served is gone after a clean stop', async () => {
    const workdir = at('plaintext-workers');
    const reactor = await startServe([at('sealed.cap'), '--private-key', at('key.pem'), '--workdir', workdir, '--workers', '2', '--log-format', 'json']);
    try {
      expect(readdirSync(join(workdir, 'decrypted'))).toHaveLength(2);
      const victim = parseInt((await fetch(`${reactor.url}/`, { headers: { Connection: 'close' } })).headers.get('x-request-id')!.split('-')[0]!, 36);
      process.kill(victim, 'SIGKILL');
      for (let waited = 0; readdirSync(join(workdir, 'decrypted')).length < 3; waited += 50) {
        if (waited > 20_000) throw new Error('the killed worker was not started again');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      expect(await reactor.stop()).toBe(0);
    }
    expect(readdirSync(join(workdir, 'decrypted'))).toEqual([]);
  });

  it('where a file and a directory meet: 409, no temporary files, a DELETE whose answer holds after a restart, and stale temporary files swept at start', async () => {
    const { site, workdir } = copiedSite('meet');
    let running = await startServe([site, '--workdir', workdir]);
    try {
      expect((await put(`${running.url}/a.txt/b.txt`, 'inner')).status).toBe(200);
      const big = 'x'.repeat(512 * 1024);
      const answers = await Promise.all(Array.from({ length: 10 }, () => put(`${running.url}/a.txt`, big).then(async (r) => [r.status, ((await r.json()) as { error: { code: string } }).error.code])));
      expect(answers).toEqual(Array.from({ length: 10 }, () => [409, 'CONTENT_CONFLICT']));
      expect(filesBelow(workdir).filter((file) => file.endsWith('.pkg-partial'))).toEqual([]);
      expect((await fetch(`${running.url}/a.txt`, { method: 'DELETE' })).status).toBe(404);
      expect(await running.stop()).toBe(0);
      writeFileSync(join(workdir, 'overlays/root~example-site/content/left.html.abc123.pkg-partial'), 'half-written by a killed reactor');
      running = await startServe([site, '--workdir', workdir]);
      expect(filesBelow(workdir).filter((file) => file.endsWith('.pkg-partial'))).toEqual([]);
      expect((await fetch(`${running.url}/a.txt`)).status).toBe(404);
      expect(await (await fetch(`${running.url}/a.txt/b.txt`)).text()).toBe('inner');
    } finally {
      await running.stop();
    }
  });
});

describe('names a package cannot hold', () => {
  it('a second spelling of a name is refused when written (409), and save answers 409 when one was put in the workdir by hand', async () => {
    const { site, workdir } = copiedSite('spellings');
    let running = await startServe([site, '--workdir', workdir]);
    try {
      expect((await put(`${running.url}/caf%C3%A9.txt`, 'composed')).status).toBe(200);
      const again = await put(`${running.url}/cafe%CC%81.txt`, 'decomposed');
      expect([again.status, ((await again.json()) as { error: { code: string } }).error.code]).toEqual([409, 'CONTENT_CONFLICT']);
      expect((await put(`${running.url}/${'n'.repeat(300)}.txt`, 'long')).status).toBe(400);
      // The longest name a write may give still fits once written under its temporary name.
      expect((await put(`${running.url}/${'n'.repeat(226)}.txt`, 'longest')).status).toBe(200);
      expect((await fetch(`${running.url}/package/example-site/save`, { method: 'POST' })).status).toBe(200);
      expect(await running.stop()).toBe(0);
      writeFileSync(join(workdir, 'overlays/root~example-site/content/cafe\u0301.txt'), 'put here by hand');
      running = await startServe([site, '--workdir', workdir]);
      const save = await fetch(`${running.url}/package/example-site/save`, { method: 'POST' });
      expect([save.status, ((await save.json()) as { error: { code: string } }).error.code]).toEqual([409, 'UNSAFE_ENTRY']);
    } finally {
      await running.stop();
    }
  });
});

describe('a save past the archive limits', () => {
  it('answers 409 ARCHIVE_LIMIT and writes nothing: the reactor could not open what it would write', async () => {
    const { site, workdir } = copiedSite('limits');
    const running = await startServe([site, '--workdir', workdir, '--max-expanded-size', '200K']);
    try {
      expect((await put(`${running.url}/a.txt`, 'a'.repeat(100_000))).status).toBe(200);
      expect((await put(`${running.url}/b.txt`, 'b'.repeat(100_000))).status).toBe(200);
      const save = await fetch(`${running.url}/package/example-site/save`, { method: 'POST' });
      const body = (await save.json()) as { error: { code: string; message: string } };
      expect([save.status, body.error.code]).toEqual([409, 'ARCHIVE_LIMIT']);
      expect(body.error.message).toMatch(/more than the limit of 204800; not written/);
      expect(existsSync(join(workdir, 'saved')) ? readdirSync(join(workdir, 'saved')) : []).toEqual([]);
    } finally {
      await running.stop();
    }
  });
});

describe('read-only locks', () => {
  const writes = async (url: string, prefix = '') => [
    (await fetch(`${url}${prefix}/api/v1/data/articles`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"id":"x","title":"t","body":"b"}' })).status,
    (await put(`${url}${prefix}/locked.txt`, 'x')).status,
    (await fetch(`${url}${prefix}/about`, { method: 'DELETE' })).status,
    (await fetch(`${url}/package/example-site/save`, { method: 'POST' })).status,
  ];

  it('--read-only refuses every write and save with 403 READ_ONLY, and reads still answer', async () => {
    const running = await startServe([EXAMPLE_SITE, '--read-only', '--workdir', at('locked-reactor')]);
    try {
      expect(await writes(running.url)).toEqual([403, 403, 403, 403]);
      const refusal = (await (await fetch(`${running.url}/locked.txt`, { method: 'PUT', body: 'x' })).json()) as { error: { code: string; message: string } };
      expect(refusal.error).toEqual({ code: 'READ_ONLY', message: expect.stringContaining('--read-only') });
      expect((await fetch(`${running.url}/api/v1/data/articles`)).status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('"writable": false locks one mount of a --config file; the others stay writable', async () => {
    const config = at('mounts.json');
    cpSync(EXAMPLE_SITE, at('open-site'), { recursive: true });
    writeFileSync(config, JSON.stringify({ mounts: [{ path: '/frozen', source: EXAMPLE_SITE, writable: false }, { path: '/open', source: at('open-site') }] }));
    const running = await startServe(['--config', config, '--workdir', at('locked-mount')]);
    try {
      const [post, putted, deleted] = await writes(running.url, '/frozen');
      expect([post, putted, deleted]).toEqual([403, 403, 403]);
      expect((await put(`${running.url}/open/unlocked.txt`, 'x')).status).toBe(200);
    } finally {
      await running.stop();
    }
    const bad = at('bad-mounts.json');
    writeFileSync(bad, JSON.stringify({ mounts: [{ path: '/x', source: EXAMPLE_SITE, writable: 'no' }] }));
    const refused = await failingServe(['--config', bad]);
    expect(refused.stderr).toMatch(/ConfigValidationError: .*mounts\[0\]\.writable: must be true or false/);
  });
});
