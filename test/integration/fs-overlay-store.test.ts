import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FsOverlayStore } from '../../src/adapters/fs/fs-overlay-store.js';
import { OverlayError } from '../../src/domain/errors.js';
import { temporaryDirectory } from '../support/paths.js';

const work = temporaryDirectory('cap-overlay-');
afterAll(() => work.remove());
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('FsOverlayStore', () => {
  it('lays the overlay out as DECISIONS.md says', async () => {
    const overlay = new FsOverlayStore().open(work.path, 'site');
    await overlay.writeContent('docs/a.html', new TextEncoder().encode('<p>a</p>'));
    await overlay.writeTombstones(['old.html']);
    const log = await overlay.openLog('items', 0);
    await log.append(new TextEncoder().encode('{"op":"delete","id":"1"}\n'));
    await log.close();
    const root = join(work.path, 'overlays/site');
    expect(readFileSync(join(root, 'content/docs/a.html'), 'utf8')).toBe('<p>a</p>');
    expect(JSON.parse(readFileSync(join(root, 'content/.pkg-tombstones'), 'utf8'))).toEqual(['old.html']);
    expect(readFileSync(join(root, 'data/items.log.jsonl'), 'utf8')).toBe('{"op":"delete","id":"1"}\n');
    expect(await overlay.contentFiles()).toEqual([{ path: 'docs/a.html', size: 8 }]);
    expect(await overlay.tombstones()).toEqual(['old.html']);
    expect(text(await overlay.readContent('docs/a.html'))).toBe('<p>a</p>');
  });

  it('replaces files whole and leaves no temporary files; a file still being written is not content', async () => {
    const overlay = new FsOverlayStore().open(work.path, 'atomic');
    for (let i = 0; i < 5; i++) await overlay.writeContent('page.txt', new TextEncoder().encode(`version ${i}`));
    const dir = join(work.path, 'overlays/atomic/content');
    expect(readdirSync(dir)).toEqual(['page.txt']);
    writeFileSync(join(dir, 'page.txt.abc123.pkg-partial'), 'half');
    expect((await overlay.contentFiles()).map((f) => f.path)).toEqual(['page.txt']);
    await overlay.removeContent('page.txt');
    expect(existsSync(join(dir, 'page.txt'))).toBe(false);
  });

  it('opening a log cuts a torn tail, so appends follow the last whole operation', async () => {
    const overlay = new FsOverlayStore().open(work.path, 'torn');
    const whole = '{"op":"delete","id":"1"}\n';
    const log = await overlay.openLog('items', 0);
    await log.append(new TextEncoder().encode(whole + '{"op":"cre'));
    await log.close();
    const reopened = await overlay.openLog('items', whole.length);
    await reopened.append(new TextEncoder().encode('{"op":"delete","id":"2"}\n'));
    await reopened.close();
    expect(text(await overlay.readLog('items'))).toBe(whole + '{"op":"delete","id":"2"}\n');
    expect(statSync(join(work.path, 'overlays/torn/data/items.log.jsonl')).size).toBe(2 * whole.length);
  });

  it('an absent overlay reads as empty; paths that escape it are refused', async () => {
    const overlay = new FsOverlayStore().open(work.path, 'absent');
    expect(await overlay.contentFiles()).toEqual([]);
    expect(await overlay.tombstones()).toEqual([]);
    expect((await overlay.readLog('none')).length).toBe(0);
    await expect(overlay.writeContent('../escape.txt', new Uint8Array())).rejects.toThrow(OverlayError);
  });
});
