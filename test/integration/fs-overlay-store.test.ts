import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FsOverlayStore } from '../../src/adapters/fs/fs-overlay-store.js';
import { OverlayError } from '../../src/domain/errors.js';
import { LOG_START } from '../../src/domain/data/log-place.js';
import { temporaryDirectory } from '../support/paths.js';

const work = temporaryDirectory('cap-overlay-');
afterAll(() => work.remove());
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('FsOverlayStore', () => {
  it('lays the overlay out as DECISIONS.md says', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'site' });
    await overlay.writeContent('docs/a.html', new TextEncoder().encode('<p>a</p>'));
    await overlay.deleteContent('old.html');
    const log = await overlay.openLog('items', 0);
    await log.append(() => new TextEncoder().encode('{"op":"delete","id":"1"}\n'));
    await log.close();
    const root = join(work.path, 'overlays/root~site');
    expect(readFileSync(join(root, 'content/docs/a.html'), 'utf8')).toBe('<p>a</p>');
    expect(JSON.parse(readFileSync(join(root, 'content/.pkg-tombstones'), 'utf8'))).toEqual(['old.html']);
    expect(readFileSync(join(root, 'data/items.log.jsonl'), 'utf8')).toBe('{"op":"delete","id":"1"}\n');
    expect(await overlay.contentFiles()).toEqual([{ path: 'docs/a.html', size: 8 }]);
    expect(await overlay.tombstones()).toEqual(['old.html']);
    expect(text(await overlay.readContent('docs/a.html'))).toBe('<p>a</p>');
  });

  it('replaces files whole and leaves no temporary files; a file still being written is not content', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'atomic' });
    for (let i = 0; i < 5; i++) await overlay.writeContent('page.txt', new TextEncoder().encode(`version ${i}`));
    const dir = join(work.path, 'overlays/root~atomic/content');
    expect(readdirSync(dir)).toEqual(['page.txt']);
    writeFileSync(join(dir, 'page.txt.abc123.pkg-partial'), 'half');
    expect((await overlay.contentFiles()).map((f) => f.path)).toEqual(['page.txt']);
    await overlay.deleteContent('page.txt');
    expect(existsSync(join(dir, 'page.txt'))).toBe(false);
  });

  it('holds only what lies in its folder: links put there by hand, to a file outside, through a linked folder, or to nothing, are neither listed nor read', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'linked' });
    await overlay.writeContent('real.txt', new TextEncoder().encode('written'));
    const dir = join(work.path, 'overlays/root~linked/content');
    const outside = join(work.path, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'secret.txt'), 'SECRET');
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'leak.txt'));
    symlinkSync(outside, join(dir, 'od'));
    symlinkSync('/nonexistent', join(dir, 'dangling.txt'));
    expect(await overlay.contentFiles()).toEqual([{ path: 'real.txt', size: 7 }]);
    for (const path of ['leak.txt', 'od/secret.txt', 'dangling.txt']) {
      await expect(overlay.readContent(path)).rejects.toThrow(OverlayError);
      await expect((async () => { for await (const chunk of overlay.streamContent(path)) void chunk; })()).rejects.toThrow(/is not a file of the overlay/);
    }
    expect(text(await overlay.readContent('real.txt'))).toBe('written');
  });

  it('opening a log cuts a torn tail, so appends follow the last whole operation', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'torn' });
    const whole = '{"op":"delete","id":"1"}\n';
    const log = await overlay.openLog('items', 0);
    await log.append(() => new TextEncoder().encode(whole + '{"op":"cre'));
    await log.close();
    const reopened = await overlay.openLog('items', whole.length);
    await reopened.append(() => new TextEncoder().encode('{"op":"delete","id":"2"}\n'));
    await reopened.close();
    expect(text(await overlay.readLog('items'))).toBe(whole + '{"op":"delete","id":"2"}\n');
    expect(statSync(join(work.path, 'overlays/root~torn/data/items.log.jsonl')).size).toBe(2 * whole.length);
  });

  it('reads a log written anew since a read of it (restored, edited) whole again, not on from the old place', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'anew' });
    const log = await overlay.openLog('items', 0);
    await log.append(() => new TextEncoder().encode('{"op":"delete","id":"1"}\n'));
    await log.close();
    const read = await overlay.readLogFrom('items', LOG_START);
    const file = join(work.path, 'overlays/root~anew/data/items.log.jsonl');
    // Longer than what was read, and another line where it ended.
    writeFileSync(file, '{"op":"delete","id":"7"}\n{"op":"delete","id":"8"}\n');
    expect(await overlay.readLogFrom('items', read.place)).toMatchObject({ whole: true, place: { length: 50 } });
    expect(text((await overlay.readLogFrom('items', read.place)).bytes)).toBe('{"op":"delete","id":"7"}\n{"op":"delete","id":"8"}\n');
    // Shorter than what was read: the whole log too; and gone: none.
    writeFileSync(file, '{"op":"delete","id":"9"}\n'.slice(0, 10));
    expect(await overlay.readLogFrom('items', read.place)).toMatchObject({ whole: true, place: LOG_START });
    rmSync(file);
    expect(await overlay.readLogFrom('items', read.place)).toEqual({ bytes: new Uint8Array(), whole: true, place: LOG_START });
  });

  it('never cuts complete operations written after the log was read: only a torn last line', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'shared' });
    const whole = '{"op":"delete","id":"1"}\n';
    const first = await overlay.openLog('items', 0);
    await first.append(() => new TextEncoder().encode(whole));
    await first.close();
    // A reader that loaded the log when it was empty must not cut what was appended since.
    await expect(overlay.openLog('items', 0)).rejects.toThrow(/holds operations written after it was read/);
    expect(text(await overlay.readLog('items'))).toBe(whole);
  });

  it('keeps one overlay per mount, and the first mount of a package adopts an older workdir\'s overlay, never two', async () => {
    const store = new FsOverlayStore();
    const legacy = join(work.path, 'overlays/old-site/content');
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, 'kept.html'), 'from an older version');
    const first = await store.open(work.path, { path: '/v1/', packageName: 'old-site' });
    const second = await store.open(work.path, { path: '/v2/', packageName: 'old-site' });
    expect(first.location).toBe(join(work.path, 'overlays/v1~old-site'));
    expect(second.location).toBe(join(work.path, 'overlays/v2~old-site'));
    expect(await first.contentFiles()).toEqual([{ path: 'kept.html', size: 21 }]);
    expect(await second.contentFiles()).toEqual([]);
    expect(existsSync(join(work.path, 'overlays/old-site'))).toBe(false);
  });

  it('an absent overlay reads as empty; paths that escape it are refused', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'absent' });
    expect(await overlay.contentFiles()).toEqual([]);
    expect(await overlay.tombstones()).toEqual([]);
    expect((await overlay.readLog('none')).length).toBe(0);
    await expect(overlay.writeContent('../escape.txt', new Uint8Array())).rejects.toThrow(OverlayError);
  });

  it('a log that cannot be made (the workdir takes no writes) is an OverlayError naming it, not the file system\'s own error', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'unmade' });
    mkdirSync(join(work.path, 'overlays/root~unmade'), { recursive: true });
    writeFileSync(join(work.path, 'overlays/root~unmade/data'), 'not a folder');
    const refused = await overlay.openLog('items', 0).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(OverlayError);
    expect((refused as OverlayError).message).toBe('cannot open overlays/root~unmade/data/items.log.jsonl in the workdir: EEXIST: file already exists');
  });

  it('a written file the system will not read (here: made a folder by hand) is an OverlayError naming it, read whole or streamed', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'unread' });
    await overlay.writeContent('page.txt', new TextEncoder().encode('written'));
    const file = join(work.path, 'overlays/root~unread/content/page.txt');
    rmSync(file);
    mkdirSync(file);
    const said = 'cannot read overlays/root~unread/content/page.txt in the workdir: EISDIR: illegal operation on a directory';
    const readings = [() => overlay.readContent('page.txt'), async () => { for await (const chunk of overlay.streamContent('page.txt')) void chunk; }];
    for (const reading of readings) {
      const refused = await reading().then(() => undefined, (error: unknown) => error);
      expect(refused).toBeInstanceOf(OverlayError);
      expect((refused as OverlayError).message).toBe(said);
    }
  });

  it('a written file replaced by a named pipe by hand is an OverlayError at once, read whole or streamed, not a read waiting for a writer', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'piped' });
    await overlay.writeContent('page.txt', new TextEncoder().encode('written'));
    const file = join(work.path, 'overlays/root~piped/content/page.txt');
    rmSync(file);
    execFileSync('mkfifo', [file]);
    const said = 'overlays/root~piped/content/page.txt in the workdir is not a file (a named pipe or another special file is in its place)';
    const readings = [() => overlay.readContent('page.txt'), async () => { for await (const chunk of overlay.streamContent('page.txt')) void chunk; }];
    for (const reading of readings) await expectRefusedAtOnce(reading, said);
  });

  it('a dataset log replaced by a named pipe by hand is an OverlayError at once, whole or from a place, not a read of the past waiting for a writer', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'piped-log' });
    const log = await overlay.openLog('items', 0);
    await log.append(() => new TextEncoder().encode('{"op":"delete","id":"1"}\n'));
    await log.close();
    const file = join(work.path, 'overlays/root~piped-log/data/items.log.jsonl');
    const { place } = await overlay.readLogFrom('items', LOG_START);
    rmSync(file);
    execFileSync('mkfifo', [file]);
    const said = 'overlays/root~piped-log/data/items.log.jsonl in the workdir is not a file (a named pipe or another special file is in its place)';
    for (const reading of [() => overlay.readLog('items'), () => overlay.readLogFrom('items', place)]) await expectRefusedAtOnce(reading, said);
  });

  it('a file may take the name of a folder whose files were all deleted, and a deleted file leaves no empty folder behind', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'folders' });
    const content = join(work.path, 'overlays/root~folders/content');
    await overlay.writeContent('m/a/b.txt', new TextEncoder().encode('inner'));
    await overlay.writeContent('m/keep.txt', new TextEncoder().encode('kept'));
    await overlay.deleteContent('m/a/b.txt');
    expect(existsSync(join(content, 'm/a'))).toBe(false);
    expect(existsSync(join(content, 'm'))).toBe(true);
    await overlay.writeContent('m/a', new TextEncoder().encode('now a file'));
    expect(readFileSync(join(content, 'm/a'), 'utf8')).toBe('now a file');
    // An empty folder left by an older reactor, or by one stopped between the two removals, gives way too.
    mkdirSync(join(content, 'left/over'), { recursive: true });
    await overlay.writeContent('left/over', new TextEncoder().encode('file'));
    expect(readFileSync(join(content, 'left/over'), 'utf8')).toBe('file');
    // A folder holding a file does not; the error, which reaches clients, names no absolute path.
    const refused = await overlay.writeContent('m', new TextEncoder().encode('x')).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(OverlayError);
    expect((refused as OverlayError).message).toBe('cannot write overlays/root~folders/content/m in the workdir: ENOTEMPTY: directory not empty');
    expect(readdirSync(join(content, 'm')).sort()).toEqual(['a', 'keep.txt']);
  });

  it('a tombstones file edited by hand into something else is an OverlayError naming it, JSON or not', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'edited' });
    await overlay.deleteContent('gone.html');
    const file = join(work.path, 'overlays/root~edited/content/.pkg-tombstones');
    for (const edited of ['["gone.html"]\nother.html\n', '{"gone.html": true}', '']) {
      writeFileSync(file, edited);
      await expect(overlay.tombstones()).rejects.toThrow(new OverlayError('overlays/root~edited/content/.pkg-tombstones in the workdir must be a JSON array of paths'));
    }
  });

  it('a tombstones file removed or edited by hand while open: the next write keeps every path the reactor still hides, so a restart hides them too', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'unburied' });
    const file = join(work.path, 'overlays/root~unburied/content/.pkg-tombstones');
    await overlay.deleteContent('a.html');
    await overlay.deleteContent('b.html');
    rmSync(file);
    await overlay.deleteContent('c.html');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(['a.html', 'b.html', 'c.html']);
    writeFileSync(file, '["c.html"]');
    await overlay.writeContent('b.html', new TextEncoder().encode('back'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(['a.html', 'c.html']);
    // What a restart reads is what was served.
    expect(await new FsOverlayStore().open(work.path, { path: '/', packageName: 'unburied' }).then((again) => again.tombstones())).toEqual(['a.html', 'c.html']);
  });

  it('an overlay removed by hand while open recovers by itself: the next content write is read back, and the next append writes the log back whole before it', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'removed' });
    const root = join(work.path, 'overlays/root~removed');
    await overlay.writeContent('a.html', new TextEncoder().encode('a'));
    const log = await overlay.openLog('items', 0);
    await log.append(() => new TextEncoder().encode('{"op":"delete","id":"1"}\n'));
    rmSync(root, { recursive: true });
    // Read while its folder is gone: a file removed by hand is the overlay's fault (503), and is no reason to fail the files written later.
    await expect(overlay.readContent('a.html')).rejects.toThrow(OverlayError);
    await overlay.writeContent('b.html', new TextEncoder().encode('b'));
    expect(text(await overlay.readContent('b.html'))).toBe('b');
    // What the log was acknowledged for stays durable: not appended to a file no restart reads.
    await log.append(() => new TextEncoder().encode('{"op":"delete","id":"2"}\n'));
    await log.append(() => new TextEncoder().encode('{"op":"delete","id":"3"}\n'));
    await log.close();
    expect(readFileSync(join(root, 'data/items.log.jsonl'), 'utf8')).toBe('{"op":"delete","id":"1"}\n{"op":"delete","id":"2"}\n{"op":"delete","id":"3"}\n');
  });

  it('a log removed by hand while open is read as the reactor holds it, whole or from a place, until the next append writes it back', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'unlogged' });
    const path = join(work.path, 'overlays/root~unlogged/data/items.log.jsonl');
    const operation = '{"op":"delete","id":"1"}\n';
    const log = await overlay.openLog('items', 0);
    await log.append(() => new TextEncoder().encode(operation));
    const read = await overlay.readLogFrom('items', LOG_START);
    rmSync(path);
    expect(text(await overlay.readLog('items'))).toBe(operation);
    expect(text((await overlay.readLogFrom('items', read.place)).bytes)).toBe(operation);
    await log.append(() => new TextEncoder().encode(operation));
    expect(readFileSync(path, 'utf8')).toBe(operation + operation);
    await log.close();
    // Closed, it holds nothing: a log gone then is none.
    rmSync(path);
    expect(await overlay.readLog('items')).toHaveLength(0);
  });

  it('a log replaced by hand while open is never overwritten nor appended to: an OverlayError says so', async () => {
    const overlay = await new FsOverlayStore().open(work.path, { path: '/', packageName: 'replaced' });
    const log = await overlay.openLog('items', 0);
    await log.append(() => new TextEncoder().encode('{"op":"delete","id":"1"}\n'));
    const file = join(work.path, 'overlays/root~replaced/data/items.log.jsonl');
    rmSync(file);
    writeFileSync(file, 'by hand\n');
    await expect(log.append(() => new TextEncoder().encode('{"op":"delete","id":"2"}\n'))).rejects.toThrow(OverlayError);
    await log.close();
    expect(readFileSync(file, 'utf8')).toBe('by hand\n');
  });
});

/** `reading` fails with an OverlayError saying `said` within two seconds, rather than waiting for a writer of the pipe. */
async function expectRefusedAtOnce(reading: () => Promise<unknown>, said: string): Promise<void> {
  const waited = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2000).unref());
  const refused = await Promise.race([reading().then(() => undefined, (error: unknown) => error), waited]);
  expect(refused).toBeInstanceOf(OverlayError);
  expect((refused as OverlayError).message).toBe(said);
}
