import { DatasetNotFoundError, DatasetUnavailableError, type PackageError } from '../../domain/errors.js';
import { DatasetIndex, describeShadowed } from '../../domain/data/dataset-index.js';
import { idPolicyOf } from '../../domain/data/item-id.js';
import { parseOperationLog } from '../../domain/data/operation-log.js';
import type { LogPlace } from '../../domain/data/log-place.js';
import type { DataSet } from '../../domain/package/storage.js';
import { readDataDocument, readDocument, type PackageModel } from '../package/package-reader.js';
import type { PackageOverlay } from '../ports/overlay-store.js';
import type { PackageSource } from '../ports/package-source.js';
import type { SchemaValidator } from '../ports/schema-validator.js';
import type { SqliteReader } from '../ports/sqlite-reader.js';
import type { Clock } from '../ports/clock.js';
import { Dataset, type DatasetLimits } from './dataset.js';
import { readSqliteRows } from './sqlite-rows.js';
import { itemSchemaOf } from '../../domain/data/dataset-schema.js';

export interface DatasetReaders {
  schemas: SchemaValidator;
  sqlite: SqliteReader;
  clock: Clock;
  /** What a dataset and a history answer may hold; DATASET_LIMITS unless a test lowers them. */
  limits?: DatasetLimits;
}

/**
 * A package's datasets, each read and parsed once at load with its overlay log folded
 * in. REST and GraphQL both go through these objects: one path for validation and
 * persistence.
 */
export class PackageDatasets {
  private constructor(private readonly byId: Map<string, Dataset>) {}

  /**
   * `overlay` is the package's writable overlay; `refusal` says why writes are refused
   * when they are, and then no log is read or written. Torn last lines of logs come
   * back as warnings.
   */
  static async load(
    source: PackageSource,
    model: PackageModel,
    overlay: PackageOverlay | undefined,
    refusal: PackageError | undefined,
    readers: DatasetReaders,
  ): Promise<{ datasets: PackageDatasets; warnings: string[] }> {
    const byId = new Map<string, Dataset>();
    const warnings: string[] = [];
    try {
      for (const [id, dataSet] of Object.entries(model.storage?.dataSets ?? {})) {
        byId.set(id, await loadDataset(id, dataSet, source, refusal ? undefined : overlay, refusal, readers, warnings));
      }
    } catch (error) {
      await Promise.all([...byId.values()].map((dataset) => dataset.close()));
      throw error;
    }
    return { datasets: new PackageDatasets(byId), warnings };
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): Dataset {
    const dataset = this.byId.get(id);
    if (!dataset) throw new DatasetNotFoundError(`no dataset ${id}`);
    return dataset;
  }

  all(): Dataset[] {
    return [...this.byId.values()];
  }

  /**
   * Holds writes while the package is loaded again (`--watch`): appends in flight finish
   * first, so the logs the new version reads are whole and no acknowledged write is missed.
   */
  async pause(): Promise<void> {
    await Promise.all(this.all().map((dataset) => dataset.pause()));
  }

  /** The new version did not load: the held writes go on here. */
  resume(): void {
    for (const dataset of this.all()) dataset.resume();
  }

  /** The held writes move to the new version's datasets of the same ids, and these close. */
  async handOver(next: PackageDatasets): Promise<void> {
    for (const dataset of this.all()) {
      const held = dataset.takeHeld();
      const successor = next.byId.get(dataset.id);
      if (successor) successor.adopt(held);
      else for (const write of held) write.reject(new DatasetNotFoundError(`no dataset ${dataset.id}: it is gone from the package`));
    }
    await this.close();
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((dataset) => dataset.close()));
  }
}

async function loadDataset(
  id: string,
  dataSet: DataSet,
  source: PackageSource,
  overlay: PackageOverlay | undefined,
  refusal: PackageError | undefined,
  readers: DatasetReaders,
  warnings: string[],
): Promise<Dataset> {
  if (dataSet.kind === 'sqlite') {
    const rows = await readSqliteRows(source, readers.sqlite, dataSet.databaseFile, dataSet.table);
    const unwritable = refusal ?? new DatasetUnavailableError(`dataset ${id} is a SQLite dataset: it can be read but not written`);
    // Its rows are its base, as a JSON file's items are: history and ?at= read from them.
    return new Dataset(id, { index: new DatasetIndex(rows), base: rows }, undefined, idPolicyOf(undefined, rows), undefined, unwritable);
  }
  const data = await readDataDocument(source, dataSet.source);
  let schema: Dataset['schema'];
  if (dataSet.schemaFile) {
    // A schema of the whole collection checks each written item with its `items` schema.
    const raw = itemSchemaOf(await readDocument(source, dataSet.schemaFile));
    if (raw !== undefined) schema = { raw, validate: await readers.schemas.compile(raw, dataSet.schemaFile) };
  }
  if (!Array.isArray(data)) return new Dataset(id, { document: data }, schema, idPolicyOf(schema?.raw, []), undefined, refusal);
  const index = new DatasetIndex(data);
  if (index.shadowed.length > 0) warnings.push(describeShadowed(dataSet.source, index.shadowed));
  if (!overlay) return new Dataset(id, { index, base: data }, schema, idPolicyOf(schema?.raw, data), undefined, refusal);
  const logFile = `${overlay.location}/data/${id}.log.jsonl`;
  const bytes = await overlay.readLog(id);
  const log = parseOperationLog(bytes, logFile);
  for (const operation of log.operations) index.apply(operation);
  if (log.tornTail !== undefined) warnings.push(`${logFile}: ignored a torn last line (${log.tornTail.length} bytes) left by an interrupted write; it was never acknowledged`);
  const datasetLog = { open: () => overlay.openLog(id, log.validLength), readFrom: (from: LogPlace) => overlay.readLogFrom(id, from), file: logFile, clock: readers.clock, unended: log.validLength > 0 && bytes[log.validLength - 1] !== 0x0a };
  return new Dataset(id, { index, base: data }, schema, idPolicyOf(schema?.raw, data), datasetLog, refusal, readers.limits);
}
