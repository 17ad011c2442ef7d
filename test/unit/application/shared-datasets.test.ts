import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AjvSchemaValidator } from '../../../src/adapters/schema/ajv-schema-validator.js';
import { PackageDatasets } from '../../../src/application/data/package-datasets.js';
import { readPackage } from '../../../src/application/package/package-reader.js';
import { DatasetIndex } from '../../../src/domain/data/dataset-index.js';
import { parseOperationLog } from '../../../src/domain/data/operation-log.js';
import { DuplicateIdError, ItemNotFoundError } from '../../../src/domain/errors.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { MemoryOverlayStore } from '../../fakes/memory-overlay-store.js';
import { MemoryPackageSource } from '../../fakes/memory-package-source.js';
import { MemorySqliteReader } from '../../fakes/memory-sqlite-reader.js';
import { VALID_METADATA } from '../../support/demo-package.js';

const BASE = [{ id: 'a', n: 0 }];
const files = {
  'metadata.json': JSON.stringify(VALID_METADATA),
  'data/items.json': JSON.stringify(BASE),
  'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
};

/** One reactor's view of the dataset, on an overlay store another reactor shares. */
async function reactorOn(store: MemoryOverlayStore) {
  const source = new MemoryPackageSource(files);
  const model = await readPackage(source, { generate: 'serving' });
  const { datasets } = await PackageDatasets.load(source, model, store.at('/w'), undefined, { schemas: new AjvSchemaValidator(), sqlite: new MemorySqliteReader(), clock: new FixedClock() });
  return datasets.get('items');
}

type Write = { reactor: 0 | 1; op: 'create' | 'replace' | 'delete'; id: string; n: number };
const write = fc.record({ reactor: fc.constantFrom(0 as const, 1 as const), op: fc.constantFrom('create' as const, 'replace' as const, 'delete' as const), id: fc.constantFrom('a', 'b', 'c', 'd'), n: fc.integer({ min: 0, max: 99 }) });

describe.each([
  ['decides once, under the hold', false],
  ['decides ahead and again with the news, as PostgreSQL does', true],
])('a dataset that two reactors write through one shared overlay that %s', (_, decidesAhead) => {
  it('decides each write against every write acknowledged before it, on either reactor: both end equal to the log replayed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(write, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }), async (rounds) => {
        const store = new MemoryOverlayStore();
        store.decidesAhead = decidesAhead;
        store.appendDelayMs = decidesAhead ? 1 : 0;
        const reactors = [await reactorOn(store), await reactorOn(store)];
        // What a single writer would hold after the acknowledged writes, in the order they were acknowledged.
        const expected = new DatasetIndex(BASE);
        let acknowledged = 0;
        for (const round of rounds) {
          // The writes of a round are sent at once, split between the two reactors.
          const outcomes = await Promise.allSettled(
            round.map(({ reactor, op, id, n }: Write) => {
              const dataset = reactors[reactor]!;
              if (op === 'create') return dataset.create({ id, n });
              if (op === 'replace') return dataset.replace(id, { n });
              return dataset.remove(id);
            }),
          );
          for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(outcome.reason instanceof DuplicateIdError ? DuplicateIdError : ItemNotFoundError);
          acknowledged += outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
        }
        const logged = parseOperationLog(store.at('/w').logBytes.get('items') ?? new Uint8Array(), 'items').operations;
        // Every write acknowledged is in the log, and no write refused is.
        expect(logged).toHaveLength(acknowledged);
        for (const operation of logged) expected.apply(operation);
        for (const dataset of reactors) {
          await dataset.catchUp();
          expect(dataset.entries()).toEqual(expected.entries());
        }
      }),
      { numRuns: 150 },
    );
  });

  it('never acknowledges two creates of one id, whichever reactors take them', async () => {
    const store = new MemoryOverlayStore();
    store.appendDelayMs = 1;
    store.decidesAhead = decidesAhead;
    const reactors = [await reactorOn(store), await reactorOn(store)];
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => reactors[i % 2]!.create({ id: 'same', n: i })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected' && outcome.reason instanceof DuplicateIdError)).toHaveLength(19);
  });

  it('answers a catch-up asked for during a stream of writes elsewhere, without waiting for the stream to end', async () => {
    const store = new MemoryOverlayStore();
    // A write every millisecond or so, and a catch-up that takes longer than that: news arrives during each.
    store.appendDelayMs = 1;
    store.catchUpDelayMs = 3;
    const [writer, reader] = [await reactorOn(store), await reactorOn(store)];
    let streaming = true;
    let written = 0;
    const stream = (async () => {
      while (streaming) await writer.create({ id: `s${written++}`, n: 0 });
    })();
    // Every write elsewhere is announced: the reader is asked to catch up after each.
    const announced = store.at('/w').watch(() => void reader.catchUp());
    try {
      for (let asked = 0; asked < 10; asked++) {
        const before = written;
        await reader.catchUp();
        expect(reader.entries().length).toBeGreaterThan(before);
      }
      expect(streaming).toBe(true);
    } finally {
      streaming = false;
      announced();
      await stream;
    }
  });

  it('applies the readable lines another writer appended around one no reader can read, where it dropped every line read with it', async () => {
    const store = new MemoryOverlayStore();
    const [writer, reader] = [await reactorOn(store), await reactorOn(store)];
    await writer.create({ id: 'b', n: 1 });
    await reader.catchUp();
    const overlay = store.at('/w');
    const tail = '{"op":"create","id":"c","item":{"id":"c","n":2}}\n{not json\n{"op":"create","id":"d","item":{"id":"d","n":3}}\n';
    overlay.logBytes.set('items', Buffer.concat([overlay.logBytes.get('items')!, Buffer.from(tail)]));
    await reader.catchUp();
    await writer.catchUp();
    for (const dataset of [reader, writer]) expect(['a', 'b', 'c', 'd'].map((id) => dataset.item(id))).toEqual([{ id: 'a', n: 0 }, { id: 'b', n: 1 }, { id: 'c', n: 2 }, { id: 'd', n: 3 }]);
  });
});
