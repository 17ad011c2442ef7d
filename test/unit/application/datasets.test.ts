import { describe, expect, it } from '@jest/globals';
import { MemoryPackageSource } from '../../fakes/memory-package-source.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { AjvSchemaValidator } from '../../../src/adapters/schema/ajv-schema-validator.js';
import { PackageDatasets } from '../../../src/application/data/package-datasets.js';
import { MAX_DATA_FILE_DEPTH, readPackage } from '../../../src/application/package/package-reader.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../src/domain/data/json-depth.js';
import { stateAt } from '../../../src/domain/data/item-history.js';
import { parseOperationLog } from '../../../src/domain/data/operation-log.js';
import { ConfigParseError, DatasetUnavailableError, DuplicateIdError, ItemNotFoundError, NotACollectionError, ReadOnlyError, SchemaViolationError } from '../../../src/domain/errors.js';
import { MemoryOverlayStore } from '../../fakes/memory-overlay-store.js';
import { MemorySqliteReader, memoryDatabase } from '../../fakes/memory-sqlite-reader.js';
import { VALID_METADATA } from '../../support/demo-package.js';

const sqlite = new MemorySqliteReader();
const files = {
  'metadata.json': JSON.stringify(VALID_METADATA),
  'data/items.json': JSON.stringify([{ id: 'a', n: 1 }, { id: 'b', n: 2 }]),
  'data/items.schema.json': JSON.stringify({ type: 'object', required: ['n'], properties: { id: { type: 'string' }, n: { type: 'integer' } } }),
  'data/plain.yaml': '- title: first\n- title: second\n',
  'data/settings.json': JSON.stringify({ theme: 'dark' }),
  'data/db.sqlite': memoryDatabase({ people: [{ id: 1, name: 'row' }] }),
  'storage.json': JSON.stringify({
    storage: {
      dataSets: {
        items: { source: 'data/items.json', schemaFile: 'data/items.schema.json', schemaType: 'json-schema' },
        plain: { source: 'data/plain.yaml' },
        settings: { source: 'data/settings.json' },
        people: { databaseFile: 'data/db.sqlite', table: 'people' },
      },
    },
  }),
};

async function load(store = new MemoryOverlayStore(), refusal?: ReadOnlyError) {
  const source = new MemoryPackageSource(files);
  const model = await readPackage(source, { generate: 'serving' });
  const overlay = store.at('/w', { path: '/', packageName: 'demo' });
  const loaded = await PackageDatasets.load(source, model, overlay, refusal, { schemas: new AjvSchemaValidator(), sqlite, clock: new FixedClock() });
  return { ...loaded, overlay, store };
}

describe('datasets', () => {
  it('says at load which base items an earlier item\'s id hides, which are then neither listed nor found', async () => {
    const source = new MemoryPackageSource({ ...files, 'data/items.json': JSON.stringify([{ id: 'a', n: 1 }, { id: 'a', n: 2 }, { id: 'b', n: 3 }]) });
    const { datasets, warnings } = await PackageDatasets.load(source, await readPackage(source, { generate: 'serving' }), undefined, undefined, { schemas: new AjvSchemaValidator(), sqlite, clock: new FixedClock() });
    expect(warnings).toEqual(['data/items.json: 1 item has the id of an earlier item and is not served: item 2 (id "a"); give each item an id of its own']);
    expect(datasets.get('items').entries()).toEqual([['a', { id: 'a', n: 1 }], ['b', { id: 'b', n: 3 }]]);
  });

  it('refuses at load a data file nested deeper than a written item may be, which no answer could serialize', async () => {
    const deep = (levels: number): unknown => (levels === 0 ? 'leaf' : [deep(levels - 1)]);
    const loadWith = async (items: unknown) => {
      const source = new MemoryPackageSource({ ...files, 'data/items.json': JSON.stringify(items) });
      return PackageDatasets.load(source, await readPackage(source, { generate: 'serving' }), undefined, undefined, { schemas: new AjvSchemaValidator(), sqlite, clock: new FixedClock() });
    };
    // The collection's list, the item, then 64 levels inside it: the most a written item may have.
    const deepest = { id: 'deep', n: 1, x: deep(MAX_JSON_DEPTH - 1) };
    expect(nestsDeeperThan(deepest, MAX_JSON_DEPTH)).toBe(false);
    await expect(loadWith([deepest])).resolves.toBeDefined();
    await expect(loadWith([{ id: 'deeper', n: 1, x: deep(MAX_DATA_FILE_DEPTH) }])).rejects.toThrow(new ConfigParseError('data/items.json', `nests deeper than ${MAX_DATA_FILE_DEPTH} levels of arrays and objects (an item may nest ${MAX_JSON_DEPTH})`));
    // 100,000 levels: refused as well, not a stack overflow of the check itself.
    const bomb = `[{"id":"bomb","n":1,"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}]`;
    const source = new MemoryPackageSource({ ...files, 'data/items.json': bomb });
    await expect(PackageDatasets.load(source, await readPackage(source, { generate: 'serving' }), undefined, undefined, { schemas: new AjvSchemaValidator(), sqlite, clock: new FixedClock() })).rejects.toBeInstanceOf(ConfigParseError);
  });

  it('merges base items with the overlay log at load, and reads never touch the log again', async () => {
    const { datasets, overlay, store } = await load();
    const items = datasets.get('items');
    await items.create({ id: 'c', n: 3 });
    await items.replace('a', { n: 10 });
    await items.remove('b');
    expect(overlay.logText('items').trim().split('\n').map((line) => JSON.parse(line).op)).toEqual(['create', 'replace', 'delete']);
    const again = await load(store);
    expect(again.datasets.get('items').collection().items).toEqual([{ id: 'a', n: 10 }, { id: 'c', n: 3 }]);
    expect(new TextDecoder().decode(again.datasets.get('items').collection().body)).toBe('[{"id":"a","n":10},{"id":"c","n":3}]');
  });

  it('one item that cannot be written fails alone: its neighbours in the same batch are stored', async () => {
    const { datasets, overlay } = await load();
    const plain = datasets.get('plain');
    let deep: unknown = {};
    for (let i = 0; i < 100; i++) deep = { deep };
    const outcomes = await Promise.allSettled([
      plain.create({ id: 'n1', title: 'one' }),
      plain.create({ id: 'big', n: 10n }),
      plain.create({ id: 'deep', deep }),
      plain.create({ id: 'n2', title: 'two' }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(((outcomes[2] as PromiseRejectedResult).reason as Error).name).toBe('InvalidItemError');
    expect(overlay.logText('plain').trim().split('\n').map((line) => JSON.parse(line).id)).toEqual(['n1', 'n2']);
  });

  it('serializes the collection once per change', async () => {
    const { datasets } = await load();
    const items = datasets.get('items');
    const first = items.collection();
    expect(items.collection()).toBe(first);
    await items.create({ id: 'z', n: 0 });
    expect(items.collection()).not.toBe(first);
    expect(items.collection().items).toHaveLength(3);
  });

  it('gives ids to items posted without one, as the dataset carries them', async () => {
    const { datasets } = await load();
    const created = await datasets.get('items').create({ n: 5 });
    expect(created).toEqual({ id: '3', item: { id: '3', n: 5 } });
    const plain = await datasets.get('plain').create({ title: 'third' });
    // Base items without ids are addressed by position; a new one gets the next free number and keeps its body as sent.
    expect(plain).toEqual({ id: '3', item: { title: 'third' } });
    expect(datasets.get('plain').item('3')).toEqual({ title: 'third' });
    // A write refused takes no number: the next one gets it, alone or in the same batch.
    await expect(datasets.get('items').create({ n: 'many' })).rejects.toThrow(SchemaViolationError);
    expect(await datasets.get('items').create({ n: 6 })).toEqual({ id: '4', item: { id: '4', n: 6 } });
    const [refused, next] = await Promise.allSettled([datasets.get('items').create({ n: 'many' }), datasets.get('items').create({ n: 7 })]);
    expect([refused.status, next.status === 'fulfilled' && next.value.id]).toEqual(['rejected', '5']);
  });

  it('checks every write: schema (all errors), duplicates, absent items', async () => {
    const { datasets, overlay } = await load();
    const items = datasets.get('items');
    const violation = await items.create({ id: 'x', n: 'many', extra: true }).catch((error: unknown) => error);
    expect(violation).toBeInstanceOf(SchemaViolationError);
    expect((violation as SchemaViolationError).violations).toEqual([{ path: '/n', message: 'must be integer' }]);
    await expect(items.create({ id: 'a', n: 1 })).rejects.toThrow(DuplicateIdError);
    await expect(items.replace('nope', { n: 1 })).rejects.toThrow(ItemNotFoundError);
    await expect(items.remove('nope')).rejects.toThrow(ItemNotFoundError);
    expect(overlay.logText('items')).toBe('');
  });

  it('a failed append is neither applied nor acknowledged', async () => {
    const { datasets, store } = await load();
    store.failAppends = true;
    await expect(datasets.get('items').create({ id: 'lost', n: 1 })).rejects.toThrow('append failed');
    expect(() => datasets.get('items').item('lost')).toThrow(ItemNotFoundError);
    store.failAppends = false;
    await datasets.get('items').create({ id: 'lost', n: 1 });
    expect(datasets.get('items').item('lost')).toEqual({ id: 'lost', n: 1 });
  });

  it('keeps writers who write again as soon as they are answered in one batch: four of them take one append per round, not two', async () => {
    const store = new MemoryOverlayStore();
    store.appendDelayMs = 3;
    const items = (await load(store)).datasets.get('items');
    const ROUNDS = 15;
    // Each answer reaches its writer a moment later, as over a network: one of them always a little before the others.
    const writer = async (who: number) => {
      for (let round = 0; round < ROUNDS; round++) {
        await items.create({ id: `w${who}-${round}`, n: round });
        for (let hop = 0; hop <= who; hop++) await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await Promise.all([0, 1, 2, 3].map(writer));
    expect(items.entries()).toHaveLength(2 + 4 * ROUNDS);
    // Out of step they would settle into one write, then three, and so on: twice as many
    // appends (29 without the wait). In step, one per round; on a busy machine the 1 ms
    // wait runs out now and then (20 seen under load in CI).
    expect(store.appends).toBeLessThanOrEqual(ROUNDS * 1.5);
  });

  it('concurrent writes lose nothing: distinct creates all land, one of two duplicates is refused', async () => {
    const { datasets, overlay } = await load();
    const items = datasets.get('items');
    const results = await Promise.allSettled([...Array.from({ length: 200 }, (_, i) => items.create({ id: `n${i}`, n: i })), items.create({ id: 'dup', n: 1 }), items.create({ id: 'dup', n: 2 })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(201);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason)).toEqual([expect.any(DuplicateIdError)]);
    expect(items.collection().items).toHaveLength(2 + 201);
    expect(overlay.logText('items').trim().split('\n')).toHaveLength(201);
    const ids = await Promise.all(Array.from({ length: 20 }, () => items.create({ n: 0 })));
    expect(new Set(ids.map((created) => created.id)).size).toBe(20);
  });

  it('loaded again while written (--watch): writes in flight land first, held ones move to the new version, none is lost', async () => {
    const { datasets, store, overlay } = await load();
    const items = datasets.get('items');
    const before = Array.from({ length: 50 }, (_, i) => items.create({ id: `b${i}`, n: i }));
    await datasets.pause();
    const held = Array.from({ length: 50 }, (_, i) => items.create({ id: `h${i}`, n: i }));
    // The log is whole while paused: a second load reads every write acknowledged so far.
    const next = (await load(store)).datasets;
    await datasets.handOver(next);
    const outcomes = await Promise.allSettled([...before, ...held]);
    expect(outcomes.every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    expect(next.get('items').collection().items).toHaveLength(2 + 100);
    expect(overlay.logText('items').trim().split('\n')).toHaveLength(100);
    expect((await load(store)).datasets.get('items').collection().items).toHaveLength(2 + 100);
  });

  it('a version that did not load: writes held by pause go on in the old one', async () => {
    const { datasets, overlay } = await load();
    await datasets.pause();
    const held = datasets.get('items').create({ id: 'h', n: 1 });
    datasets.resume();
    await held;
    expect(overlay.logText('items').trim().split('\n')).toHaveLength(1);
  });

  it('a torn last log line is dropped with a warning and cut off at the first write', async () => {
    const { store, overlay } = await load();
    overlay.logBytes.set('items', new TextEncoder().encode('{"op":"delete","id":"a"}\n{"op":"create","id":"q","item":{"n'));
    const again = await load(store);
    expect(again.warnings).toEqual([expect.stringMatching(/items\.log\.jsonl: ignored a torn last line/)]);
    expect(again.datasets.get('items').collection().items).toEqual([{ id: 'b', n: 2 }]);
    await again.datasets.get('items').create({ id: 'r', n: 1 });
    expect(overlay.logText('items')).toBe('{"op":"delete","id":"a"}\n{"op":"create","id":"r","item":{"id":"r","n":1},"at":"2025-01-01T00:00:00.000Z"}\n');
  });

  it('reads and parses the log for the past once per version of the data: ?at= and history asked again before a write answer from what was read', async () => {
    const { datasets, overlay } = await load();
    const items = datasets.get('items');
    await items.create({ id: 'c', n: 3 });
    const when = Date.UTC(2030, 0, 1);
    const reads = overlay.logReads;
    expect((await items.at(when)).list()).toEqual(expect.arrayContaining([{ id: 'c', n: 3 }]));
    expect((await items.at(when)).list()).toEqual((await items.at(when)).list());
    expect(overlay.logReads - reads).toBe(1);
    // Histories asked at that same version read no file: the bytes read for ?at= serve them.
    expect((await items.history('c')).versions).toEqual((await items.history('c')).versions);
    expect(overlay.logReads - reads).toBe(1);
    await items.remove('c');
    expect((await items.at(when)).list()).not.toEqual(expect.arrayContaining([{ id: 'c', n: 3 }]));
    // After a write, only what was appended is read: never the whole log again.
    expect(overlay.logReads - reads).toBe(1);
    expect(overlay.logTailReads).toBe(1);
    expect((await items.history('c')).versions.map((version) => version.op)).toEqual(['create', 'delete']);
  });

  /** The log read whole, from scratch: what every read of the past must answer. */
  const fromScratch = (overlay: { logText(dataset: string): string }, time: number) => {
    const base: unknown[] = JSON.parse(files['data/items.json']);
    return stateAt(base, parseOperationLog(new TextEncoder().encode(overlay.logText('items')), 'log').operations, time).list();
  };

  /** Items with one write, and its history read once: the log is kept, `reads` whole reads of it so far. */
  const readAfterOneWrite = async () => {
    const { datasets, overlay } = await load();
    const items = datasets.get('items');
    await items.create({ id: 'c', n: 3 });
    expect((await items.history('c')).total).toBe(1);
    return { items, overlay, reads: overlay.logReads };
  };

  it('reads of the past after a write read what was appended, right at every step: history and ?at= as the whole log answers them', async () => {
    const { datasets, overlay } = await load();
    const items = datasets.get('items');
    const when = Date.UTC(2030, 0, 1);
    const reads = overlay.logReads;
    for (let round = 0; round < 5; round++) {
      await items.create({ id: `n${round}`, n: round });
      await items.replace('a', { n: 100 + round });
      expect((await items.at(when)).list()).toEqual(fromScratch(overlay, when));
      expect((await items.history('a')).versions.map((version) => (version.item as { n: number }).n)).toEqual([1, ...Array.from({ length: round + 1 }, (_, i) => 100 + i)]);
    }
    expect(overlay.logReads - reads).toBe(1);
    // Reads and writes interleaved: each read answers every write acknowledged before it was asked.
    const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const written = await items.replace('b', { n: 200 + i });
      const history = await items.history('b');
      return { written: (written.item as { n: number }).n, seen: history.versions.map((version) => (version.item as { n: number }).n) };
    }));
    for (const { written, seen } of answers) expect(seen).toContain(written);
    expect((await items.at(when)).list()).toEqual(fromScratch(overlay, when));
    expect((await items.history('b')).total).toBe(21);
  });

  it('a log written anew since it was read is read whole again: its answers are the new log\'s, not the old lines with the new ones after them', async () => {
    const { items, overlay, reads } = await readAfterOneWrite();
    // Written anew (as a restore would), longer than what was read, with other lines where those were.
    overlay.logBytes.set('items', new TextEncoder().encode(['{"op":"create","id":"z","item":{"id":"z","n":26}}', '{"op":"delete","id":"a"}', '{"op":"create","id":"c","item":{"id":"c","n":33}}', ''].join('\n')));
    await items.catchUp();
    await items.create({ id: 'd', n: 4 });
    expect(overlay.logReads - reads).toBe(0);
    const when = Date.UTC(2030, 0, 1);
    expect((await items.at(when)).list()).toEqual(fromScratch(overlay, when));
    expect(overlay.logReads - reads).toBe(1);
    expect((await items.history('c')).versions.map((version) => (version.item as { n: number }).n)).toEqual([33]);
    expect((await items.history('z')).total).toBe(1);
  });

  it('a torn last line is passed over by reads of the past, before the first write cuts it and after', async () => {
    const { store, overlay } = await load();
    overlay.logBytes.set('items', new TextEncoder().encode('{"op":"delete","id":"a"}\n{"op":"create","id":"q","item":{"n'));
    const items = (await load(store)).datasets.get('items');
    const when = Date.UTC(2030, 0, 1);
    expect((await items.at(when)).list()).toEqual([{ id: 'b', n: 2 }]);
    expect((await items.history('a')).versions.map((version) => version.op)).toEqual(['base', 'delete']);
    await expect(items.history('q')).rejects.toThrow(ItemNotFoundError);
    // The first write cuts the torn line, then appends where it was.
    await items.create({ id: 'q', n: 7 });
    expect((await items.at(when)).list()).toEqual([{ id: 'b', n: 2 }, { id: 'q', n: 7 }]);
    expect((await items.history('q')).versions).toEqual([{ op: 'create', at: '2025-01-01T00:00:00.000Z', item: { id: 'q', n: 7 } }]);
    expect(overlay.logTailReads).toBe(1);
  });

  it('a write after an operation written whole but for its newline goes on a line of its own: the log loads again with both', async () => {
    const { store, overlay } = await load();
    overlay.logBytes.set('items', new TextEncoder().encode('{"op":"delete","id":"a"}'));
    await (await load(store)).datasets.get('items').create({ id: 'r', n: 1 });
    expect(overlay.logText('items')).toBe('{"op":"delete","id":"a"}\n{"op":"create","id":"r","item":{"id":"r","n":1},"at":"2025-01-01T00:00:00.000Z"}\n');
    const again = (await load(store)).datasets.get('items');
    expect(again.collection().items).toEqual([{ id: 'b', n: 2 }, { id: 'r', n: 1 }]);
    expect((await again.history('a')).versions.map((version) => version.op)).toEqual(['base', 'delete']);
  });

  it('a line another writer appended that no reader can read is passed over by history and ?at= as by the data served, not a failure of every read of the past', async () => {
    const { items, overlay } = await readAfterOneWrite();
    const elsewhere = await overlay.openLog('items', overlay.logBytes.get('items')!.length);
    // A newer version's operation, then one this version writes.
    await elsewhere.append(() => new TextEncoder().encode('{"op":"patch","id":"c","changes":{"n":4}}\n{"op":"replace","id":"c","item":{"id":"c","n":5}}\n'));
    await items.catchUp();
    expect(items.item('c')).toEqual({ id: 'c', n: 5 });
    expect((await items.history('c')).versions.map((version) => (version.item as { n: number }).n)).toEqual([3, 5]);
    expect((await items.at(Date.UTC(2030, 0, 1))).list()).toEqual(items.collection().items);
  });

  it('an operation written whole but for its newline counts in the past, as it did at load', async () => {
    const { store, overlay } = await load();
    overlay.logBytes.set('items', new TextEncoder().encode('{"op":"delete","id":"a"}\n{"op":"create","id":"q","item":{"id":"q","n":5}}'));
    const items = (await load(store)).datasets.get('items');
    expect((await items.at(Date.UTC(2030, 0, 1))).list()).toEqual([{ id: 'b', n: 2 }, { id: 'q', n: 5 }]);
    expect((await items.history('q')).versions).toEqual([{ op: 'create', at: null, item: { id: 'q', n: 5 } }]);
  });

  it('what another reactor appended is in the past once it is caught up with, read as a tail', async () => {
    const { items, overlay, reads } = await readAfterOneWrite();
    const elsewhere = await overlay.openLog('items', overlay.logBytes.get('items')!.length);
    await elsewhere.append(() => new TextEncoder().encode('{"op":"replace","id":"c","item":{"id":"c","n":30},"at":"2025-01-01T00:00:01.000Z"}\n'));
    await items.catchUp();
    expect((await items.history('c')).versions.map((version) => (version.item as { n: number }).n)).toEqual([3, 30]);
    expect(overlay.logReads - reads).toBe(0);
  });

  it('refuses writes with the reason: read-only package, SQLite dataset, a document that is not a list', async () => {
    const readOnly = await load(undefined, new ReadOnlyError('package demo is read-only'));
    await expect(readOnly.datasets.get('items').create({ id: 'x', n: 1 })).rejects.toThrow(ReadOnlyError);
    const { datasets } = await load();
    expect(datasets.get('people').collection().items).toEqual([{ id: 1, name: 'row' }]);
    expect(datasets.get('people').item('1')).toEqual({ id: 1, name: 'row' });
    await expect(datasets.get('people').create({ id: 2 })).rejects.toThrow(DatasetUnavailableError);
    // Its rows are its past too: the history of a row, and the table at any time.
    expect((await datasets.get('people').history('1')).versions).toEqual([{ op: 'base', at: null, item: { id: 1, name: 'row' } }]);
    expect((await datasets.get('people').at(Date.parse('2020-01-01T00:00:00Z'))).list()).toEqual([{ id: 1, name: 'row' }]);
    expect(JSON.parse(new TextDecoder().decode(datasets.get('settings').collection().body))).toEqual({ theme: 'dark' });
    await expect(datasets.get('settings').create({})).rejects.toThrow(NotACollectionError);
  });
});
