import { DatasetUnavailableError } from '../../domain/errors.js';
import type { DataSet } from '../../domain/package/storage.js';
import { readDocument } from '../package/package-reader.js';
import type { PackageSource } from '../ports/package-source.js';

export interface DatasetCollection {
  /** The collection as JSON, serialized once. */
  body: Uint8Array;
  /** The items, parsed once, when the dataset is an array. */
  items?: readonly unknown[];
}

/**
 * The datasets of a package, parsed once at load: a collection GET answers bytes
 * serialized at load, never re-parsing the data file per request.
 */
export class DatasetCatalog {
  private constructor(
    private readonly collections: Map<string, DatasetCollection>,
    private readonly unavailable: Map<string, string>,
  ) {}

  static async load(source: PackageSource, dataSets: Record<string, DataSet>): Promise<DatasetCatalog> {
    const collections = new Map<string, DatasetCollection>();
    const unavailable = new Map<string, string>();
    for (const [id, dataSet] of Object.entries(dataSets)) {
      if (dataSet.kind === 'sqlite') {
        unavailable.set(id, `dataset ${id} is a SQLite dataset; this reactor does not read SQLite datasets yet`);
        continue;
      }
      const data = await readDocument(source, dataSet.source);
      collections.set(id, { body: new TextEncoder().encode(JSON.stringify(data)), ...(Array.isArray(data) ? { items: data } : {}) });
    }
    return new DatasetCatalog(collections, unavailable);
  }

  has(id: string): boolean {
    return this.collections.has(id) || this.unavailable.has(id);
  }

  /** The collection, undefined for an unknown id; throws DatasetUnavailableError when it cannot be read. */
  collection(id: string): DatasetCollection | undefined {
    const reason = this.unavailable.get(id);
    if (reason) throw new DatasetUnavailableError(reason);
    return this.collections.get(id);
  }
}
