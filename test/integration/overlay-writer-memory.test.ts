import { afterEach, describe, expect, it } from '@jest/globals';
import { FsOverlayStore } from '../../src/adapters/fs/fs-overlay-store.js';
import { FsSessionRevocationStore } from '../../src/adapters/fs/fs-session-revocations.js';
import { KEPT_LOG_BYTES, OverlayWriter } from '../../src/adapters/cluster/overlay-writer.js';
import { bytes, text } from '../contracts/subject.js';
import { temporaryDirectory } from '../support/paths.js';

const SITE = { path: '/', packageName: 'site' };
const line = (id: number) => `{"op":"delete","id":"${id}","pad":"${'x'.repeat(40)}"}\n`;
const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => line(from + i)).join('');

/** The primary's writer over a workdir's files, keeping at most `kept` bytes of appends in memory. */
async function primary(kept?: number) {
  const workdir = temporaryDirectory('cap-writer-memory-');
  const writer = new OverlayWriter({ overlays: new FsOverlayStore(), revocations: new FsSessionRevocationStore(), close: async () => undefined }, { change: () => undefined, revoked: () => undefined }, kept);
  const location = await writer.open(workdir.path, SITE);
  /** One append of a worker: what it is handed, then its bytes committed. */
  const append = async (worker: number, handle: number, added: string) => {
    const handed = text(await writer.hold(worker, handle));
    await writer.commit(worker, handle, bytes(added));
    return handed;
  };
  const dispose = async () => (await writer.close(), workdir.remove());
  return { writer, location, append, dispose };
}

let dispose: (() => Promise<void>) | undefined;

/** Two workers with the log open from its start. */
async function twoWorkers(kept?: number) {
  const cluster = await primary(kept);
  dispose = cluster.dispose;
  const first = await cluster.writer.openLog(1, cluster.location, 'items', 0);
  const second = await cluster.writer.openLog(2, cluster.location, 'items', 0);
  return { ...cluster, first, second };
}
afterEach(async () => {
  await dispose?.();
  dispose = undefined;
});

describe('what the primary keeps of the logs its workers append to', () => {
  it('keeps no more than its bound while a worker that never catches up lags behind, and hands that worker every byte from the file', async () => {
    const { writer, append, first: busy, second: idle } = await twoWorkers(256);
    for (let i = 0; i < 200; i++) {
      expect(await append(1, busy, line(i))).toBe('');
      expect(await writer.retainedLogBytes()).toBeLessThanOrEqual(256);
    }
    expect(text(await writer.catchUp(2, idle))).toBe(lines(0, 200));
    expect(await append(2, idle, line(200))).toBe('');
    expect(await append(1, busy, line(201))).toBe(line(200));
    expect(text(await writer.catchUp(2, idle))).toBe(line(201));
    expect(await writer.retainedLogBytes()).toBe(0);
  });

  it('hands a worker that opens the log at a length it read long ago what was appended since, from the file', async () => {
    const cluster = await primary(256);
    dispose = cluster.dispose;
    const { writer, location, append } = cluster;
    const first = await writer.openLog(1, location, 'items', 0);
    for (let i = 0; i < 50; i++) await append(1, first, line(i));
    const late = await writer.openLog(2, location, 'items', Buffer.byteLength(lines(0, 10)));
    expect(text(await writer.catchUp(2, late))).toBe(lines(10, 50));
    expect(await append(2, late, line(50))).toBe('');
    expect(await append(1, first, line(51))).toBe(line(50));
  });

  it('forgets what every worker has read: workers that keep up leave nothing behind', async () => {
    const { writer, append, first: one, second: two } = await twoWorkers();
    for (let i = 0; i < 100; i += 2) {
      expect(await append(1, one, line(i))).toBe(i === 0 ? '' : line(i - 1));
      expect(await append(2, two, line(i + 1))).toBe(line(i));
    }
    expect(text(await writer.catchUp(1, one))).toBe(line(99));
    expect(await writer.retainedLogBytes()).toBe(0);
  });

  it('keeps at most its default bound, however much is appended', async () => {
    const { writer, append, first: busy, second: idle } = await twoWorkers();
    const chunk = lines(0, 1000);
    for (let i = 0; i < Math.ceil((3 * KEPT_LOG_BYTES) / chunk.length); i++) await append(1, busy, chunk);
    expect(await writer.retainedLogBytes()).toBeLessThanOrEqual(KEPT_LOG_BYTES);
    expect((await writer.catchUp(2, idle)).length).toBeGreaterThan(3 * KEPT_LOG_BYTES);
  });
});
