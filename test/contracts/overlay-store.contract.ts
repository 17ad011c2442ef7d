import { describe, expect, it } from '@jest/globals';
import type { OverlayStore } from '../../src/application/ports/overlay-store.js';
import { OverlayError } from '../../src/domain/errors.js';
import { LOG_START } from '../../src/domain/data/log-place.js';
import { bytes, collect, eachSubject, text, type Subject } from './subject.js';

/** For a store several reactors share: a second opener of the same overlay, as another reactor opens it. */
export interface SharingCheck {
  elsewhere(subject: OverlayStoreSubject): Promise<Subject<{ store: OverlayStore }>>;
  /** Its logs take whole lines only (a transaction, never a torn write): torn tails cannot be made to test. */
  wholeLinesOnly?: boolean;
}

export interface OverlayStoreSubject {
  store: OverlayStore;
  /** A workdir the store may write in. */
  workdir: string;
}

const SITE = { path: '/', packageName: 'site' };
const LINE = '{"op":"delete","id":"1"}\n';

/** The promises of the OverlayStore port (src/application/ports/overlay-store.ts). */
export function describeOverlayStoreContract(name: string, makeSubject: () => Promise<Subject<OverlayStoreSubject>> | Subject<OverlayStoreSubject>, sharing?: SharingCheck): void {
  describe(`${name} keeps the OverlayStore contract`, () => {
    const subject = eachSubject(makeSubject);
    const open = (mount = SITE) => subject().store.open(subject().workdir, mount);

    it('opens an empty overlay: no content, no tombstones, empty logs', async () => {
      const overlay = await open();
      expect(overlay.location).toEqual(expect.any(String));
      expect(overlay.location).not.toBe('');
      expect(await overlay.contentFiles()).toEqual([]);
      expect(await overlay.tombstones()).toEqual([]);
      expect(await overlay.readLog('items')).toEqual(new Uint8Array());
    });

    it('keeps written content: read, streamed and listed with its size', async () => {
      const overlay = await open();
      await overlay.writeContent('docs/a.html', bytes('<p>a</p>'));
      await overlay.writeContent('b.txt', bytes('bee'));
      expect(text(await overlay.readContent('docs/a.html'))).toBe('<p>a</p>');
      expect(text(await collect(overlay.streamContent('docs/a.html')))).toBe('<p>a</p>');
      expect(sorted(await overlay.contentFiles())).toEqual([
        { path: 'b.txt', size: 3 },
        { path: 'docs/a.html', size: 8 },
      ]);
    });

    it('replaces a file whole: a shorter write leaves none of the old bytes', async () => {
      const overlay = await open();
      await overlay.writeContent('page.txt', bytes('a long first version'));
      await overlay.writeContent('page.txt', bytes('short'));
      expect(text(await overlay.readContent('page.txt'))).toBe('short');
      expect(await overlay.contentFiles()).toEqual([{ path: 'page.txt', size: 5 }]);
    });

    it('deletes content: the file goes and the path is tombstoned; deleting what is not there tombstones it too', async () => {
      const overlay = await open();
      await overlay.writeContent('page.txt', bytes('x'));
      await overlay.deleteContent('page.txt');
      await overlay.deleteContent('never-written.txt');
      expect(await overlay.contentFiles()).toEqual([]);
      expect(await overlay.tombstones()).toEqual(['page.txt', 'never-written.txt']);
      await expect(overlay.readContent('page.txt')).rejects.toThrow();
    });

    it('refuses a content path that is not below the content root', async () => {
      const overlay = await open();
      for (const path of ['../escape.txt', '/etc/passwd', 'a/../../b', 'a//b']) {
        await expect(overlay.writeContent(path, bytes('x'))).rejects.toThrow(OverlayError);
      }
      expect(await overlay.contentFiles()).toEqual([]);
    });

    it('a write lifts the tombstone of its path, and tombstones are not content', async () => {
      const overlay = await open();
      await overlay.deleteContent('old.html');
      await overlay.deleteContent('docs/gone.html');
      await overlay.deleteContent('old.html');
      expect(await overlay.tombstones()).toEqual(['old.html', 'docs/gone.html']);
      expect(await overlay.contentFiles()).toEqual([]);
      await overlay.writeContent('old.html', bytes('back'));
      expect(await overlay.tombstones()).toEqual(['docs/gone.html']);
      expect(await overlay.contentFiles()).toEqual([{ path: 'old.html', size: 4 }]);
    });

    it('lists the mounts it holds overlays for', async () => {
      await (await open()).writeContent('a.txt', bytes('a'));
      await (await open({ path: '/v2/docs/', packageName: 'docs-site' })).deleteContent('gone.txt');
      expect(sortedMounts(await subject().store.list(subject().workdir))).toEqual([
        { path: '/', packageName: 'site' },
        { path: '/v2/docs/', packageName: 'docs-site' },
      ]);
    });

    it('appends to a log, which reads back whole; each dataset has its own', async () => {
      const overlay = await open();
      const log = await overlay.openLog('items', 0);
      await log.append(() => bytes(LINE));
      await log.append(() => bytes(LINE.replace('1', '2')));
      await log.close();
      expect(text(await overlay.readLog('items'))).toBe(LINE + LINE.replace('1', '2'));
      expect(await overlay.readLog('other')).toEqual(new Uint8Array());
      const second = await overlay.openLog('another', 0);
      await second.append(() => bytes(LINE));
      await second.close();
      expect(await overlay.logs()).toEqual(['another', 'items']);
    });

    it('reads a log on from where a read of it ended: only what was appended since, and the whole log from the start', async () => {
      const overlay = await open();
      expect(await overlay.readLogFrom('items', LOG_START)).toEqual({ bytes: new Uint8Array(), whole: true, place: LOG_START });
      const log = await overlay.openLog('items', 0);
      await log.append(() => bytes(LINE));
      const first = await overlay.readLogFrom('items', LOG_START);
      expect([text(first.bytes), first.whole, first.place.length]).toEqual([LINE, true, LINE.length]);
      expect(text((await overlay.readLogFrom('items', first.place)).bytes)).toBe('');
      await log.append(() => bytes(LINE.replace('1', '2') + LINE.replace('1', '3')));
      const second = await overlay.readLogFrom('items', first.place);
      expect([text(second.bytes), second.whole, second.place.length]).toEqual([LINE.replace('1', '2') + LINE.replace('1', '3'), false, 3 * LINE.length]);
      await log.close();
      // Another opener of the overlay (a reactor started again) goes on from the same place.
      expect(text((await (await open()).readLogFrom('items', first.place)).bytes)).toBe(LINE.replace('1', '2') + LINE.replace('1', '3'));
    });

    if (!sharing?.wholeLinesOnly) {
      it('a read of a log ends before a torn last line, which the next read reads again once it is cut and appended after', async () => {
        const overlay = await open();
        const first = await overlay.openLog('items', 0);
        await first.append(() => bytes(LINE + '{"op":"cre'));
        await first.close();
        const read = await overlay.readLogFrom('items', LOG_START);
        expect([text(read.bytes), read.place.length]).toEqual([LINE + '{"op":"cre', LINE.length]);
        const reopened = await overlay.openLog('items', LINE.length);
        await reopened.append(() => bytes(LINE.replace('1', '2')));
        await reopened.close();
        const next = await overlay.readLogFrom('items', read.place);
        expect([text(next.bytes), next.whole, next.place.length]).toEqual([LINE.replace('1', '2'), false, 2 * LINE.length]);
      });

      it('openLog with a length cuts a torn tail past it, so appends follow the last whole line', async () => {
        const overlay = await open();
        const first = await overlay.openLog('items', 0);
        await first.append(() => bytes(LINE + '{"op":"cre'));
        await first.close();
        const reopened = await overlay.openLog('items', LINE.length);
        await reopened.append(() => bytes(LINE.replace('1', '2')));
        await reopened.close();
        expect(text(await overlay.readLog('items'))).toBe(LINE + LINE.replace('1', '2'));
      });
    }

    if (!sharing) {
      it('openLog refuses complete lines past the length with OverlayError, and leaves the log as it was', async () => {
        const overlay = await open();
        const first = await overlay.openLog('items', 0);
        await first.append(() => bytes(LINE + LINE));
        await first.close();
        await expect(overlay.openLog('items', 0)).rejects.toThrow(OverlayError);
        await expect(overlay.openLog('items', LINE.length)).rejects.toThrow(OverlayError);
        expect(text(await overlay.readLog('items'))).toBe(LINE + LINE);
        const whole = await overlay.openLog('items', 2 * LINE.length);
        await whole.close();
        expect(text(await overlay.readLog('items'))).toBe(LINE + LINE);
      });
    }

    it('keeps one overlay per mount: the same mount again sees its writes, another mount path or package does not', async () => {
      const overlay = await open();
      await overlay.writeContent('a.txt', bytes('a'));
      await overlay.deleteContent('x.html');
      const log = await overlay.openLog('items', 0);
      await log.append(() => bytes(LINE));
      await log.close();
      const again = await open();
      expect(text(await again.readContent('a.txt'))).toBe('a');
      expect(await again.tombstones()).toEqual(['x.html']);
      expect(text(await again.readLog('items'))).toBe(LINE);
      for (const other of [{ path: '/v2/', packageName: 'site' }, { path: '/', packageName: 'other-site' }]) {
        const elsewhere = await open(other);
        expect(elsewhere.location).not.toBe(overlay.location);
        expect(await elsewhere.contentFiles()).toEqual([]);
        expect(await elsewhere.tombstones()).toEqual([]);
        expect(await elsewhere.readLog('items')).toEqual(new Uint8Array());
      }
    });

    if (sharing) {
      describe('shared by several reactors', () => {
        it('hands each writer of a log what the others appended since it last looked, and appends after it', async () => {
          const other = await sharing.elsewhere(subject());
          try {
            const here = await (await open()).openLog('items', 0);
            const there = await (await other.store.open(subject().workdir, SITE)).openLog('items', 0);
            await here.append(() => bytes(LINE));
            // A store may ask again with what was appended meanwhile: all it hands over, once each, is what the others appended.
            const seenThere: string[] = [];
            await there.append((elsewhere) => (seenThere.push(text(elsewhere)), bytes(LINE.replace('1', '2'))));
            expect(seenThere.join('')).toBe(LINE);
            expect(text(await here.catchUp())).toBe(LINE.replace('1', '2'));
            expect(text(await here.catchUp())).toBe('');
            const seenHere: string[] = [];
            await here.append((elsewhere) => (seenHere.push(text(elsewhere)), bytes(LINE.replace('1', '3'))));
            expect(seenHere.join('')).toBe('');
            expect(text(await (await open()).readLog('items'))).toBe(LINE + LINE.replace('1', '2') + LINE.replace('1', '3'));
            await here.close();
            await there.close();
          } finally {
            await other.dispose?.();
          }
        });

        it('reads on from a place what the other reactors appended since, as what this one appended', async () => {
          const other = await sharing.elsewhere(subject());
          try {
            const here = await open();
            const mine = await here.openLog('items', 0);
            await mine.append(() => bytes(LINE));
            const read = await here.readLogFrom('items', LOG_START);
            const theirs = await (await other.store.open(subject().workdir, SITE)).openLog('items', 0);
            await theirs.append(() => bytes(LINE.replace('1', '2')));
            expect(text((await here.readLogFrom('items', read.place)).bytes)).toBe(LINE.replace('1', '2'));
            await mine.close();
            await theirs.close();
          } finally {
            await other.dispose?.();
          }
        });

        it('tells the other reactors what changed: first that anything may have (since the overlay was opened), then content written and deleted, and a dataset appended to', async () => {
          const other = await sharing.elsewhere(subject());
          try {
            const heard: unknown[] = [];
            const stop = (await other.store.open(subject().workdir, SITE)).watch((change) => heard.push(change));
            const overlay = await open();
            await overlay.writeContent('a.txt', bytes('abc'));
            await overlay.deleteContent('b.txt');
            const log = await overlay.openLog('items', 0);
            await log.append(() => bytes(LINE));
            await log.close();
            const expected = [{ kind: 'any' }, { kind: 'written', path: 'a.txt', size: 3 }, { kind: 'deleted', path: 'b.txt' }, { kind: 'data', dataset: 'items' }];
            for (let waited = 0; heard.length < expected.length && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
            expect(heard).toEqual(expected);
            stop();
          } finally {
            await other.dispose?.();
          }
        });
      });
    }
  });
}

function sortedMounts<T extends { path: string }>(mounts: T[]): T[] {
  return [...mounts].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function sorted<T extends { path: string }>(files: T[]): T[] {
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
