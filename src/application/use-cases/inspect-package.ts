import type { Metadata } from '../../domain/package/metadata.js';
import { routesDocument } from '../../domain/package/routes.js';
import { storageDocument } from '../../domain/package/storage.js';
import { readPackage, type PackageModel } from '../package/package-reader.js';
import type { PackageOpener } from '../ports/package-source.js';
import { SignatureMismatchError } from '../../domain/errors.js';
import { refuseEncrypted } from '../signing/envelope-opener.js';
import type { SignatureCheck } from '../signing/signature-check.js';

export type InspectItem = 'info' | 'manifest' | 'routes' | 'metadata' | 'storage';

export interface PackageInfo extends Pick<Metadata, 'name' | 'version' | 'description' | 'guid' | 'uuid' | 'author' | 'license'> {
  source: string;
  kind: string;
  files: number;
  bytes: number;
  readOnly: boolean;
  signed: boolean;
  datasets: string[];
  routes: number;
  generated: string[];
  dependencies: Array<{ guid: string; range: string }>;
}

/** Prints a package's configuration in its canonical, normalized form. */
export class InspectPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly signatures: SignatureCheck,
  ) {}

  async execute(location: string, item: InspectItem): Promise<unknown> {
    const source = await this.opener.open(location);
    try {
      refuseEncrypted(source, item === 'info' ? 'inspect' : `print the ${item} of`);
      const model = await readPackage(source);
      if (model.security?.digitalSignatures) {
        const verdict = await this.signatures.check(source, model.security);
        if (!verdict.valid) throw new SignatureMismatchError(`${location}: ${verdict.reason}`);
      }
      switch (item) {
        case 'metadata':
          return model.metadata;
        case 'manifest':
          return model.manifest;
        case 'routes':
          return routesDocument(model.routes);
        case 'storage':
          return model.storage ? storageDocument(model.storage) : null;
        case 'info':
          return info(model, source.location, source.kind, source.entries());
      }
    } finally {
      await source.close();
    }
  }
}

function info(model: PackageModel, location: string, kind: string, entries: readonly { size: number }[]): PackageInfo {
  const { metadata } = model;
  const result: PackageInfo = {
    name: metadata.name,
    version: metadata.version,
    description: metadata.description,
    guid: metadata.guid,
    uuid: metadata.uuid,
    source: location,
    kind,
    files: entries.length,
    bytes: entries.reduce((sum, entry) => sum + entry.size, 0),
    readOnly: metadata.readOnly === true,
    signed: model.security?.digitalSignatures !== undefined,
    datasets: Object.keys(model.storage?.dataSets ?? {}),
    routes: model.routes.routes.length,
    generated: [...(model.manifestGenerated ? ['manifest.json'] : []), ...(model.routesGenerated ? ['routes.json'] : [])],
    dependencies: Object.entries(metadata.dependencies ?? {}).map(([guid, range]) => ({ guid, range })),
  };
  if (metadata.author) result.author = metadata.author;
  if (metadata.license) result.license = metadata.license;
  return result;
}
