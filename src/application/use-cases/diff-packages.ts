import { isCoveredByChecksums } from '../../domain/integrity/security.js';
import { isEncryptedPackage } from '../../domain/integrity/envelope.js';
import { diffPackages, type PackageDiff, type PackageSnapshot } from '../../domain/package/package-diff.js';
import type { Route } from '../../domain/package/routes.js';
import { PackageDatasets, type DatasetReaders } from '../data/package-datasets.js';
import { digestEntries } from '../integrity/digest-entries.js';
import { readMetadata, readPackage } from '../package/package-reader.js';
import { packedConfigFiles } from '../package/generated-files.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';

export interface DiffReport extends PackageDiff {
  from: string;
  to: string;
}

/**
 * `pkg package diff <a> <b>`: two packages, directories or `.cap`s in any mix, compared
 * by what they hold: identity, files by checksum of the bytes as packed, routes,
 * dataset items, signature and encryption. An encrypted package is compared by its
 * envelope: its content cannot be read without the key.
 */
export class DiffPackages {
  constructor(
    private readonly opener: PackageOpener,
    private readonly hasher: Hasher,
    private readonly readers: DatasetReaders,
  ) {}

  async execute(from: string, to: string): Promise<DiffReport> {
    const [a, b] = await Promise.all([this.snapshot(from), this.snapshot(to)]);
    return { from, to, ...diffPackages(a, b) };
  }

  private async snapshot(location: string): Promise<PackageSnapshot> {
    const source = await this.opener.open(location);
    try {
      const paths = source.entries().map((entry) => entry.path).filter(isCoveredByChecksums);
      const files = await digestEntries(source, this.hasher, paths);
      if (isEncryptedPackage((path) => source.has(path))) {
        const metadata = await readMetadata(source);
        return { ...identity(metadata), files, routes: new Map(), signature: 'unknown (encrypted)', encrypted: true };
      }
      const model = await readPackage(source);
      // Compared as packed: the canonical configuration files (generated ones too) are what its .cap holds.
      if (source.kind === 'directory') for (const file of packedConfigFiles(model, (path) => source.has(path))) files.set(file.path, this.hasher.sha256(file.data));
      const signatures = model.security?.digitalSignatures;
      return {
        ...identity(model.metadata),
        files,
        routes: new Map(model.routes.routes.map((route) => [route.path, answerOf(route)])),
        datasets: await datasetItems(source, model, this.readers),
        signature: signatures ? (signatures.certificateType === 'OpenPGP' ? 'OpenPGP' : 'RSA-SHA256') : 'unsigned',
        encrypted: false,
      };
    } finally {
      await source.close();
    }
  }
}

function identity(metadata: { name: string; version: string; guid?: string }): Pick<PackageSnapshot, 'name' | 'version' | 'guid'> {
  return { name: metadata.name, version: metadata.version, ...(metadata.guid !== undefined ? { guid: metadata.guid } : {}) };
}

/** What answers a route, in words: two routes on one path differ when this differs. */
function answerOf(route: Route): string {
  const { path: _path, ...rest } = route;
  return stableJson(rest);
}

async function datasetItems(source: PackageSource, model: Parameters<typeof PackageDatasets.load>[1], readers: DatasetReaders): Promise<Map<string, Map<string, string>>> {
  const { datasets } = await PackageDatasets.load(source, model, undefined, undefined, readers);
  try {
    const result = new Map<string, Map<string, string>>();
    for (const dataset of datasets.all()) {
      // A dataset that is one JSON document, not a collection, has one "item": the document.
      const entries: Array<[string, unknown]> = dataset.isCollection ? dataset.entries() : [['(document)', JSON.parse(new TextDecoder().decode(dataset.collection().body))]];
      result.set(dataset.id, new Map(entries.map(([id, item]) => [id, stableJson(item)])));
    }
    return result;
  } finally {
    await datasets.close();
  }
}

/** JSON with object keys sorted, so two equal items compare equal whatever their key order. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : inner,
  );
}
