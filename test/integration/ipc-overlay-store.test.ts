import { describe, expect, it } from '@jest/globals';
import type { AppendLog, OverlayMount, OverlayStore, PackageOverlay } from '../../src/application/ports/overlay-store.js';
import { FsOverlayStore } from '../../src/adapters/fs/fs-overlay-store.js';
import { FsSessionRevocationStore } from '../../src/adapters/fs/fs-session-revocations.js';
import { IpcOverlayStore } from '../../src/adapters/cluster/ipc-overlay-store.js';
import { IpcSessionRevocationStore } from '../../src/adapters/cluster/ipc-session-revocations.js';
import { PrimaryLink } from '../../src/adapters/cluster/primary-link.js';
import { WorkerLink } from '../../src/adapters/cluster/worker-link.js';
import { describeOverlayStoreContract } from '../contracts/overlay-store.contract.js';
import { bytes, text } from '../contracts/subject.js';
import { channelPair } from '../support/cluster-channels.js';
import { temporaryDirectory } from '../support/paths.js';

const SITE = { path: '/', packageName: 'site' };
const line = (id: number) => `{"op":"delete","id":"${id}"}\n`;

/** The workdir's files, each append waiting for `slow` (when set) before it goes to disk. */
function slowStore(gate: { slow?: Promise<void> }): OverlayStore {
  const files = new FsOverlayStore();
  return Object.assign(Object.create(files) as OverlayStore, {
    open: async (workdir: string, mount: OverlayMount): Promise<PackageOverlay> => {
      const overlay = await files.open(workdir, mount);
      return Object.assign(Object.create(overlay) as PackageOverlay, {
        location: overlay.location,
        openLog: async (dataset: string, length: number): Promise<AppendLog> => {
          const log = await overlay.openLog(dataset, length);
          return { append: async (decide) => (await gate.slow, log.append(decide)), catchUp: () => log.catchUp(), close: () => log.close() };
        },
      });
    },
  });
}

/** A primary writing the workdir's files for its workers, each worker on its own line to it. */
function cluster(gate: { slow?: Promise<void> } = {}) {
  const workdir = temporaryDirectory('cap-ipc-overlay-');
  const primary = new PrimaryLink({ overlays: slowStore(gate), revocations: new FsSessionRevocationStore(), close: async () => undefined }, { ready: () => undefined, failed: () => undefined });
  let next = 1;
  const worker = () => {
    const pair = channelPair();
    primary.attach(next++, pair.primary);
    const link = new WorkerLink(pair.worker);
    return { link, store: new IpcOverlayStore(link), revocations: new IpcSessionRevocationStore(link, new FsSessionRevocationStore()), die: pair.cut };
  };
  return { workdir: workdir.path, primary, worker, dispose: async () => (await primary.close(), workdir.remove()) };
}

/** The cluster of the contract's current subject: its other workers are the other reactors. */
let current: ReturnType<typeof cluster>;
describeOverlayStoreContract(
  'IpcOverlayStore (a worker, through the primary that writes the files)',
  () => {
    current = cluster();
    return { store: current.worker().store, workdir: current.workdir, dispose: current.dispose };
  },
  { elsewhere: async () => ({ store: current.worker().store }) },
);

describe('the primary as the one writer for its workers', () => {
  it('serializes concurrent appends of several workers: each decides after the others, and every line lands once', async () => {
    const { workdir, worker, dispose } = cluster();
    try {
      const workers = [worker(), worker(), worker()];
      const logs = await Promise.all(workers.map(async ({ store }) => (await store.open(workdir, SITE)).openLog('items', 0)));
      const seen = workers.map(() => new Set<string>());
      await Promise.all(
        logs.flatMap((log, w) =>
          Array.from({ length: 20 }, (_, i) =>
            log.append((elsewhere) => {
              for (const l of text(elsewhere).split('\n').filter(Boolean)) seen[w]!.add(l);
              const mine = line(w * 100 + i);
              seen[w]!.add(mine.trim());
              return bytes(mine);
            }),
          ),
        ),
      );
      for (const log of logs) for (const l of text(await log.catchUp()).split('\n').filter(Boolean)) seen[logs.indexOf(log)]!.add(l);
      const written = text(await (await workers[0]!.store.open(workdir, SITE)).readLog('items')).split('\n').filter(Boolean);
      expect(written).toHaveLength(60);
      expect(new Set(written).size).toBe(60);
      for (const view of seen) expect([...view].sort()).toEqual([...written].sort());
      await Promise.all(logs.map((log) => log.close()));
    } finally {
      await dispose();
    }
  });

  it('lets go of the hold of a worker that dies holding it, without appending: the others go on', async () => {
    const { workdir, worker, dispose } = cluster();
    try {
      const dying = worker();
      const other = worker();
      const held = await (await dying.store.open(workdir, SITE)).openLog('items', 0);
      const log = await (await other.store.open(workdir, SITE)).openLog('items', 0);
      let decided!: () => void;
      const deciding = new Promise<void>((resolve) => (decided = resolve));
      const stuck = held.append(() => {
        decided();
        dying.die();
        return bytes(line(1));
      });
      await deciding;
      await expect(stuck).rejects.toThrow(/primary process is gone/);
      await log.append(() => bytes(line(2)));
      expect(text(await (await other.store.open(workdir, SITE)).readLog('items'))).toBe(line(2));
      await log.close();
    } finally {
      await dispose();
    }
  });

  it('keeps the hold of a worker that dies while its append is being written until it is written: the next holder is handed it', async () => {
    let release!: () => void;
    const gate: { slow?: Promise<void> } = {};
    const { workdir, worker, dispose } = cluster(gate);
    try {
      const dying = worker();
      const other = worker();
      const held = await (await dying.store.open(workdir, SITE)).openLog('items', 0);
      const log = await (await other.store.open(workdir, SITE)).openLog('items', 0);
      gate.slow = new Promise((resolve) => (release = resolve));
      const stuck = held.append(() => bytes(line(1)));
      // The commit is on its way to the primary, whose append waits: then the worker dies.
      await new Promise((resolve) => setTimeout(resolve, 50));
      dying.die();
      await expect(stuck).rejects.toThrow(/primary process is gone/);
      const handed: string[] = [];
      const next = log.append((elsewhere) => (handed.push(text(elsewhere)), bytes(line(2))));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(handed).toEqual([]);
      release();
      await next;
      expect(handed).toEqual([line(1)]);
      expect(text(await (await other.store.open(workdir, SITE)).readLog('items'))).toBe(line(1) + line(2));
      await log.close();
    } finally {
      release?.();
      await dispose();
    }
  });

  it('holds an overlay\'s content for one worker at a time: another\'s write waits, and sees the first one\'s file before it goes on', async () => {
    const { workdir, worker, dispose } = cluster();
    try {
      const [one, two] = [await worker().store.open(workdir, SITE), await worker().store.open(workdir, SITE)];
      const heard: string[] = [];
      two.watch((change) => change.kind === 'written' && heard.push(change.path));
      const order: string[] = [];
      let finish!: () => void;
      const first = one.exclusive(async () => {
        order.push('one checks');
        await new Promise<void>((resolve) => (finish = resolve));
        await one.writeContent('a.txt', bytes('1'));
        order.push('one wrote');
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = two.exclusive(async () => {
        order.push(`two checks, having heard ${heard.join()}`);
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(order).toEqual(['one checks']);
      finish();
      await Promise.all([first, second]);
      expect(order).toEqual(['one checks', 'one wrote', 'two checks, having heard a.txt']);
    } finally {
      await dispose();
    }
  });

  it('lets go of the content hold of a worker that dies holding it: the others go on', async () => {
    const { workdir, worker, dispose } = cluster();
    try {
      const dying = worker();
      const [held, other] = [await dying.store.open(workdir, SITE), await worker().store.open(workdir, SITE)];
      let holding!: () => void;
      const taken = new Promise<void>((resolve) => (holding = resolve));
      void held.exclusive(() => (holding(), new Promise<void>(() => undefined)));
      await taken;
      const next = other.exclusive(async () => 'went on');
      dying.die();
      await expect(next).resolves.toBe('went on');
    } finally {
      await dispose();
    }
  });

  it('a worker that opens a log after others appended starts where it read, and is handed nothing it already has', async () => {
    const { workdir, worker, dispose } = cluster();
    try {
      const first = await (await worker().store.open(workdir, SITE)).openLog('items', 0);
      await first.append(() => bytes(line(1)));
      const late = worker();
      const overlay = await late.store.open(workdir, SITE);
      const read = await overlay.readLog('items');
      const log = await overlay.openLog('items', read.length);
      const handed: string[] = [];
      await first.append(() => bytes(line(2)));
      await log.append((elsewhere) => (handed.push(text(elsewhere)), bytes(line(3))));
      expect(handed).toEqual([line(2)]);
      await Promise.all([first.close(), log.close()]);
    } finally {
      await dispose();
    }
  });

  it('shares logouts: one worker revokes, durably; another has it at once, and a worker started later reads it', async () => {
    const { workdir, worker, dispose } = cluster();
    try {
      const [one, two] = [worker(), worker()];
      const here = await one.revocations.open(workdir);
      const there = await two.revocations.open(workdir);
      await here.revoke('session-a', Date.now() + 3600_000);
      for (let waited = 0; !there.has('session-a') && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(there.has('session-a')).toBe(true);
      expect((await worker().revocations.open(workdir)).has('session-a')).toBe(true);
    } finally {
      await dispose();
    }
  });

  it('gathers a report from every serving worker, the asker included; a dead one and one still loading are left out', async () => {
    const { worker, dispose } = cluster();
    try {
      const workers = [worker(), worker(), worker(), worker()];
      workers.forEach(({ link }, i) => link.answer('requests', (argument) => ({ worker: i, argument })));
      for (const { link } of workers.slice(0, 3)) link.ready({ url: 'http://127.0.0.1:1', port: 1, mounts: [], failures: [], warnings: [] });
      workers[2]!.die();
      const started = Date.now();
      const gathered = await workers[0]!.link.gather('requests', 7);
      expect(gathered).toEqual(expect.arrayContaining([{ worker: 0, argument: 7 }, { worker: 1, argument: 7 }]));
      expect(gathered).toHaveLength(2);
      // Not waited for either: the gather's timeout is seconds.
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await dispose();
    }
  });
});
