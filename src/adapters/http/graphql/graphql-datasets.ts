import type { Dataset } from '../../../application/data/dataset.js';
import type { PackageDatasets } from '../../../application/data/package-datasets.js';
import type { DataSet } from '../../../domain/package/storage.js';

/** The datasets GraphQL serves: every JSON or YAML one, lists and documents alike (SQLite datasets are skipped). */
export function graphqlDatasets(datasets: PackageDatasets, dataSets: Record<string, DataSet>): Dataset[] {
  return datasets.all().filter((dataset) => dataSets[dataset.id]?.kind !== 'sqlite');
}
