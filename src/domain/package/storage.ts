import { ConfigValidationError } from '../errors.js';
import { isRecord } from './documents.js';
import type { Visibility } from './manifest.js';
import { CONTENT_DIR, STORAGE_FILE, unsafePathReason } from './package-paths.js';

export interface SchemaDataSet {
  kind: 'schema';
  source: string;
  schemaFile?: string;
  schemaType?: 'json-schema';
}

export interface SqliteDataSet {
  kind: 'sqlite';
  databaseFile: string;
  table: string;
}

export type DataSet = SchemaDataSet | SqliteDataSet;

export interface Layer {
  path: string;
  writable: boolean;
  visibility: Visibility;
}

export interface Storage {
  /** Keyed by dataset id: the name in `/api/v1/data/<id>`, in GraphQL and in the overlay. */
  dataSets: Record<string, DataSet>;
  /** Bottom to top, in declaration order. */
  layers: Layer[];
}

/**
 * A dataset id names its log file (`<id>.log.jsonl`), so it is bounded; `__` starts the
 * names GraphQL keeps for itself (and `__proto__`, which an object cannot hold as a key).
 */
const DATASET_ID = /^(?!__)[A-Za-z_][A-Za-z0-9_-]{0,127}$/;

/**
 * Reads storage.json into the canonical form. Accepts `{storage: {dataSets, layers}}`,
 * the same without the `storage` wrapper, and the legacy `{datasets: [{name, source,
 * format, schema}]}` list.
 */
export function normalizeStorage(raw: unknown): Storage {
  if (!isRecord(raw)) throw new ConfigValidationError(STORAGE_FILE, ['must be a JSON object']);
  const issues: string[] = [];
  // A `storage` that is not an object was read as absent, and with it every dataset: a package of none, validated as fine.
  if (raw.storage !== undefined && raw.storage !== null && !isRecord(raw.storage)) issues.push('storage: must be an object holding dataSets and layers');
  const body = isRecord(raw.storage) ? raw.storage : raw;
  const dataSets: Record<string, DataSet> = {};
  if (body.datasets !== undefined && body.datasets !== null && !Array.isArray(body.datasets)) {
    issues.push(`${body === raw ? '' : 'storage.'}datasets: the legacy form is a list of {name, source}; datasets keyed by id go in storage.dataSets`);
  } else if (Array.isArray(body.datasets)) {
    body.datasets.forEach((item, index) => {
      if (!isRecord(item) || typeof item.name !== 'string') {
        issues.push(`datasets[${index}]: a legacy dataset needs "name"`);
        return;
      }
      const { name, schema, format: _format, ...rest } = item;
      addDataSet(dataSets, name, schema === undefined ? rest : { ...rest, schemaFile: schema, schemaType: 'json-schema' }, issues);
    });
  } else if (body.dataSets !== undefined) {
    if (!isRecord(body.dataSets)) issues.push('storage.dataSets: must be an object keyed by dataset id');
    else for (const [id, value] of Object.entries(body.dataSets)) addDataSet(dataSets, id, value, issues);
  }
  const layers: Layer[] = [];
  if (body.layers !== undefined && body.layers !== null) {
    if (!Array.isArray(body.layers)) issues.push('storage.layers: must be an array');
    else body.layers.forEach((layer, index) => {
      const canonical = canonicalLayer(layer, `storage.layers[${index}]`, issues);
      if (!canonical) return;
      const shared = sharedFolder(canonical.path, layers);
      if (shared) issues.push(`storage.layers[${index}].path: ${JSON.stringify(canonical.path)} ${shared}`);
      layers.push(canonical);
    });
    const content = CONTENT_DIR.slice(0, -1);
    if (!layers.some((layer) => layer.path === content)) {
      // content/ is the bottom layer when no layer names it, exported: a layer inside it had its files there too.
      const inside = layers.findIndex((layer) => layer.path.startsWith(CONTENT_DIR));
      if (inside >= 0) issues.push(`storage.layers[${inside}].path: ${JSON.stringify(layers[inside]!.path)} is inside ${CONTENT_DIR}, the package's own layer: its files would be in both, exported and served at two paths (give it a folder of its own)`);
    }
  }
  if (issues.length > 0) throw new ConfigValidationError(STORAGE_FILE, issues);
  return { dataSets, layers };
}

function addDataSet(into: Record<string, DataSet>, id: string, value: unknown, issues: string[]): void {
  const where = `storage.dataSets[${JSON.stringify(id)}]`;
  if (!DATASET_ID.test(id)) issues.push(`${where}: a dataset id must match ${DATASET_ID.source}`);
  if (Object.hasOwn(into, id)) issues.push(`${where}: declared twice`);
  if (!isRecord(value)) {
    issues.push(`${where}: must be an object`);
    return;
  }
  if (value.databaseFile !== undefined || value.table !== undefined) {
    if (typeof value.databaseFile !== 'string' || typeof value.table !== 'string') issues.push(`${where}: a SQLite dataset needs "databaseFile" and "table" strings`);
    else into[id] = { kind: 'sqlite', databaseFile: value.databaseFile, table: value.table };
    return;
  }
  if (typeof value.source !== 'string') {
    issues.push(`${where}: needs "source" (a data file) or "databaseFile" and "table"`);
    return;
  }
  const dataSet: SchemaDataSet = { kind: 'schema', source: value.source };
  if (value.schemaFile !== undefined) {
    if (typeof value.schemaFile !== 'string') issues.push(`${where}.schemaFile: must be a string`);
    else dataSet.schemaFile = value.schemaFile;
    if (value.schemaType !== undefined && value.schemaType !== 'json-schema') issues.push(`${where}.schemaType: only "json-schema" is known`);
    dataSet.schemaType = 'json-schema';
  }
  into[id] = dataSet;
}

/**
 * Why a layer's folder is not its own, given the layers declared before it. One folder
 * twice (writable and not, exported and private) was stacked twice, its flags contradicting;
 * one inside another was read by both, so a private layer's files were a dependent's to
 * see through the exported one around them, and each file was served at two paths.
 */
function sharedFolder(path: string, earlier: readonly Layer[]): string | undefined {
  for (const [index, other] of earlier.entries()) {
    if (other.path === path) return `is the path of storage.layers[${index}] too: a folder is one layer`;
    if (path.startsWith(`${other.path}/`)) return `is inside the folder of storage.layers[${index}] (${JSON.stringify(other.path)}): its files would be in both layers (give it a folder of its own)`;
    if (other.path.startsWith(`${path}/`)) return `holds the folder of storage.layers[${index}] (${JSON.stringify(other.path)}): its files would be in both layers (give each a folder of its own)`;
  }
  return undefined;
}

function canonicalLayer(raw: unknown, where: string, issues: string[]): Layer | undefined {
  if (!isRecord(raw) || typeof raw.path !== 'string') {
    issues.push(`${where}: needs "path"`);
    return undefined;
  }
  const path = raw.path.replace(/\/+$/, '');
  // `..`, `/etc`, `.` or "" name no folder of the package: the layer was read as empty, and validate passed it.
  const unsafe = unsafePathReason(path);
  if (unsafe !== undefined) issues.push(`${where}.path: ${JSON.stringify(raw.path)} is not a folder of the package (${unsafe})`);
  if (raw.writable !== undefined && typeof raw.writable !== 'boolean') issues.push(`${where}.writable: must be a boolean`);
  const visibility = raw.visibility ?? 'exported';
  if (visibility !== 'exported' && visibility !== 'private') issues.push(`${where}.visibility: must be "exported" or "private"`);
  return { path, writable: raw.writable === true, visibility: visibility as Visibility };
}

/** The canonical document, as writers emit it. */
export function storageDocument(storage: Storage): { storage: Record<string, unknown> } {
  const dataSets: Record<string, unknown> = {};
  for (const [id, dataSet] of Object.entries(storage.dataSets)) {
    const { kind: _kind, ...fields } = dataSet;
    dataSets[id] = fields;
  }
  return { storage: storage.layers.length > 0 ? { dataSets, layers: storage.layers } : { dataSets } };
}

export function dataSetFiles(dataSet: DataSet): string[] {
  if (dataSet.kind === 'sqlite') return [dataSet.databaseFile];
  return dataSet.schemaFile ? [dataSet.source, dataSet.schemaFile] : [dataSet.source];
}
