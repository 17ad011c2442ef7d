import { describe, expect, it } from '@jest/globals';
import { MemoryPackageSource } from '../../fakes/memory-package-source.js';
import { FixedClock } from '../../fakes/fixed-clock.js';
import { MemoryOverlayStore } from '../../fakes/memory-overlay-store.js';
import { MemorySqliteReader } from '../../fakes/memory-sqlite-reader.js';
import { AjvSchemaValidator } from '../../../src/adapters/schema/ajv-schema-validator.js';
import { PackageDatasets } from '../../../src/application/data/package-datasets.js';
import type { ItemPreconditions } from '../../../src/application/data/item-preconditions.js';
import { readPackage } from '../../../src/application/package/package-reader.js';
import { ItemNotFoundError, PreconditionFailedError } from '../../../src/domain/errors.js';
import { VALID_METADATA } from '../../support/demo-package.js';

const files = {
  'metadata.json': JSON.stringify(VALID_METADATA),
  'data/items.json': JSON.stringify([{ id: 'a', v: 1 }, { id: 'b', v: 1 }]),
  'storage.json': JSON.stringify({ storage: { dataSets: { items: { source: 'data/items.json' } } } }),
};

async function items() {
  const source = new MemoryPackageSource(files);
  const model = await readPackage(source, { generate: 'serving' });
  const store = new MemoryOverlayStore();
  const overlay = store.at('/w', { path: '/', packageName: 'demo' });
  const { datasets } = await PackageDatasets.load(source, model, overlay, undefined, { schemas: new AjvSchemaValidator(), sqlite: new MemorySqliteReader(), clock: new FixedClock() });
  return { dataset: datasets.get('items'), overlay, store };
}

// A fake tag: the item's version, enough to tell one state of an item from another.
const etagOf = (item: unknown) => `"v${(item as { v: number }).v}"`;
const ifMatch = (header: string): ItemPreconditions => ({ ifMatch: header, etagOf });
const ifNoneMatch = (header: string): ItemPreconditions => ({ ifNoneMatch: header, etagOf });

describe('If-Match and If-None-Match on dataset writes', () => {
  it('a replace or remove whose If-Match names the current tag goes through; another tag is refused and writes nothing', async () => {
    const { dataset, overlay } = await items();
    await expect(dataset.replace('a', { v: 2 }, ifMatch('"v9"'))).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(dataset.remove('a', ifMatch('"v2"'))).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(overlay.logText('items')).toBe('');
    await dataset.replace('a', { v: 2 }, ifMatch('"v0", "v1"'));
    await dataset.remove('a', ifMatch('"v2"'));
    expect(dataset.entries()).toEqual([['b', { id: 'b', v: 1 }]]);
  });

  it('with If-Match a missing item is a failed precondition, not a 404; * needs the item; without If-Match nothing changes', async () => {
    const { dataset } = await items();
    await expect(dataset.replace('zz', { v: 1 }, ifMatch('*'))).rejects.toThrow(PreconditionFailedError);
    await expect(dataset.remove('zz', ifMatch('"v1"'))).rejects.toThrow(PreconditionFailedError);
    await expect(dataset.replace('zz', { v: 1 })).rejects.toThrow(ItemNotFoundError);
    await dataset.replace('b', { v: 5 }, ifMatch('*'));
    expect(dataset.item('b')).toEqual({ id: 'b', v: 5 });
  });

  it('If-None-Match: * refuses a replace of an item that exists; a listed current tag refuses a replace or remove; others go through', async () => {
    const { dataset, overlay } = await items();
    await expect(dataset.replace('a', { v: 2 }, ifNoneMatch('*'))).rejects.toThrow(PreconditionFailedError);
    await expect(dataset.replace('a', { v: 2 }, ifNoneMatch('"v0", W/"v1"'))).rejects.toThrow(PreconditionFailedError);
    await expect(dataset.remove('a', ifNoneMatch('"v1"'))).rejects.toThrow(PreconditionFailedError);
    expect(overlay.logText('items')).toBe('');
    await expect(dataset.replace('zz', { v: 1 }, ifNoneMatch('*'))).rejects.toThrow(ItemNotFoundError);
    await dataset.replace('a', { v: 2 }, { ifMatch: '"v1"', ifNoneMatch: '"v9"', etagOf });
    await dataset.remove('b', ifNoneMatch('"v9"'));
    expect(dataset.entries()).toEqual([['a', { id: 'a', v: 2 }]]);
  });

  it('is checked in the write queue: of writes queued together naming one tag, only the first passes', async () => {
    const { dataset, store } = await items();
    store.appendDelayMs = 20;
    const outcomes = await Promise.allSettled([
      dataset.replace('a', { v: 2 }, ifMatch('"v1"')),
      dataset.replace('a', { v: 3 }, ifMatch('"v1"')),
      dataset.remove('a', ifMatch('"v1"')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(PreconditionFailedError);
    expect(dataset.item('a')).toEqual({ id: 'a', v: 2 });
    // One queued behind a write in flight sees that write.
    const [first, second] = await Promise.allSettled([dataset.replace('a', { v: 3 }, ifMatch('"v2"')), dataset.replace('a', { v: 4 }, ifMatch('"v3"'))]);
    expect([first.status, second.status]).toEqual(['fulfilled', 'fulfilled']);
    expect(dataset.item('a')).toEqual({ id: 'a', v: 4 });
  });
});
