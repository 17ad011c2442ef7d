import { describe, expect, it } from '@jest/globals';
import { MemoryPackageSource } from '../../fakes/memory-package-source.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { AjvSchemaValidator } from '../../../src/adapters/schema/ajv-schema-validator.js';
import { PackageDatasets } from '../../../src/application/data/package-datasets.js';
import type { DatasetLimits } from '../../../src/application/data/dataset.js';
import { readPackage } from '../../../src/application/package/package-reader.js';
import { DatasetIndex } from '../../../src/domain/data/dataset-index.js';
import { formatOperation, linesOfItem } from '../../../src/domain/data/operation-log.js';
import { DatasetFullError, HistoryTooLargeError, ItemNotFoundError } from '../../../src/domain/errors.js';
import { MemoryOverlayStore } from '../../fakes/memory-overlay-store.js';
import { MemorySqliteReader } from '../../fakes/memory-sqlite-reader.js';
import { VALID_METADATA } from '../../support/demo-package.js';

const files = {
  'metadata.json': JSON.stringify(VALID_METADATA),
  'data/notes.json': JSON.stringify([{ id: 'a', x: 1 }]),
  'storage.json': JSON.stringify({ storage: { dataSets: { notes: { source: 'data/notes.json' } } } }),
};

async function notes(limits: DatasetLimits) {
  const source = new MemoryPackageSource(files);
  const store = new MemoryOverlayStore();
  const overlay = store.at('/w', { path: '/', packageName: 'demo' });
  const { datasets } = await PackageDatasets.load(source, await readPackage(source, { generate: 'serving' }), overlay, undefined, { schemas: new AjvSchemaValidator(), sqlite: new MemorySqliteReader(), clock: new FixedClock(), limits });
  return { dataset: datasets.get('notes'), overlay };
}

const length = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe('what a dataset may hold', () => {
  it('refuses, before logging it, a write that would take the collection past its bytes, and takes it again once deletes make room', async () => {
    const { dataset, overlay } = await notes({ datasetBytes: 1000, historyBytes: 1 << 20 });
    for (let i = 0; i < 8; i++) await dataset.create({ id: `n${i}`, s: 'é'.repeat(40) });
    const logged = (await overlay.readLog('notes')).length;
    await expect(dataset.create({ id: 'big', s: 'x'.repeat(400) })).rejects.toThrow(DatasetFullError);
    expect((await overlay.readLog('notes')).length).toBe(logged);
    // A write that adds nothing is taken even at the bound; one that grows an item is weighed like a new one.
    await expect(dataset.replace('n0', { s: 'x'.repeat(500) })).rejects.toThrow(DatasetFullError);
    await dataset.replace('n0', { s: 'y' });
    expect(dataset.collection().body.length).toBeLessThanOrEqual(1000);
    for (let i = 1; i < 8; i++) await dataset.remove(`n${i}`);
    await dataset.create({ id: 'big', s: 'x'.repeat(400) });
    expect(dataset.collection().body.length).toBeLessThanOrEqual(1000);
  });

  it('counts the collection once, then keeps the count with each operation, to the byte the collection serializes to', () => {
    const index = new DatasetIndex([{ id: 'a', s: 'ü' }, { t: 1 }]);
    const served = () => length(index.list());
    expect(index.bytes).toBe(served());
    const operations = [
      { op: 'create', id: 'b', item: { id: 'b', s: '😀' } },
      { op: 'replace', id: 'a', item: { id: 'a', s: 'longer than before' } },
      { op: 'delete', id: '2' },
      { op: 'delete', id: 'a' },
      { op: 'delete', id: 'b' },
    ] as const;
    for (const operation of operations) {
      index.apply(operation);
      expect(index.bytes).toBe(served());
    }
  });
});

describe('an item\'s history', () => {
  it('answers a page of the versions and how many there are, and refuses a page over what one answer may hold', async () => {
    const { dataset } = await notes({ datasetBytes: 1 << 20, historyBytes: 600 });
    for (let i = 0; i < 5; i++) await dataset.replace('a', { s: `${i}`.repeat(200) });
    await dataset.create({ id: 'other', s: 'z' });
    await expect(dataset.history('a')).rejects.toThrow(HistoryTooLargeError);
    const page = await dataset.history('a', { offset: 1, limit: 2 });
    expect(page.total).toBe(6);
    expect(page.versions.map((version) => version.op)).toEqual(['replace', 'replace']);
    expect(page.versions[1]).toMatchObject({ item: { id: 'a', s: '1'.repeat(200) } });
    expect((await dataset.history('a', { offset: 0, limit: 1 })).versions).toEqual([{ op: 'base', at: null, item: { id: 'a', x: 1 } }]);
    // One version is always answered: it fitted in the dataset.
    const small = await notes({ datasetBytes: 1 << 20, historyBytes: 10 });
    await small.dataset.replace('a', { s: 'x'.repeat(100) });
    expect((await small.dataset.history('a', { offset: 1, limit: 1 })).versions).toHaveLength(1);
    await expect(dataset.history('ghost')).rejects.toThrow(ItemNotFoundError);
  });

  it('finds an item\'s lines by the id each line names first, ids with escapes too, and parses lines of another shape whole', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const log = [
      formatOperation({ op: 'create', id: 'q"é', item: { id: 'q"é' } }, at),
      formatOperation({ op: 'create', id: 'other', item: { id: 'other', ref: 'q"é' } }, at),
      // Another writer's order of fields, and a numeric id.
      '{"id":"q\\"\\u00e9","op":"delete"}\n',
      '{"op":"create","id":7,"item":{"id":7}}\n',
    ].join('');
    const bytes = new TextEncoder().encode(log);
    expect(linesOfItem(bytes, 'q"é')).toHaveLength(2);
    expect(linesOfItem(bytes, '7')).toHaveLength(1);
    expect(linesOfItem(bytes, 'other')).toHaveLength(1);
  });
});
