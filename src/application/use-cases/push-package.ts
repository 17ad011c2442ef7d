import { ChecksumMismatchError, InvalidPackageError, InvalidRegistryError, RegistryNotConfiguredError, UsageError } from '../../domain/errors.js';
import { readMetadata } from '../package/package-reader.js';
import { identified } from '../../domain/package/metadata.js';
import { digestOf, verifiedBytes } from '../package/verified-bytes.js';
import { refuseEncrypted } from '../signing/envelope-opener.js';
import type { Hasher } from '../ports/hasher.js';
import type { PackageOpener } from '../ports/package-source.js';
import type { RegistryClients } from '../ports/registry-client.js';
import type { ValidatePackage } from './validate-package.js';

export interface PushRequest {
  cap: string;
  registry?: string;
  /** Replace a published version whose bytes differ. */
  force: boolean;
}

export interface Pushed {
  guid: string;
  name: string;
  version: string;
  file: string;
  sha256: string;
  size: number;
  registry: string;
  /** False when the registry already had these exact bytes for the version. */
  published: boolean;
}

/**
 * `pkg package push`: a `.cap` that validates is copied into a registry directory as it
 * is (its signature, if any, stays valid), and the registry's index.json is rewritten
 * whole with the SHA-256 and size of what was copied.
 */
export class PushPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly validator: ValidatePackage,
    private readonly registries: RegistryClients,
    private readonly hasher: Hasher,
  ) {}

  async execute(request: PushRequest): Promise<Pushed> {
    if (request.registry === undefined || request.registry === '') throw new RegistryNotConfiguredError('no registry to push to: use --registry or set PKG_REGISTRY');
    const registry = this.registries.open(request.registry);
    if (!registry.publish) throw new InvalidRegistryError(`registry ${registry.display} is read-only: push publishes into a registry directory`);
    const source = await this.opener.open(request.cap);
    try {
      if (!source.archiveBytes) throw new UsageError(`${request.cap} is a directory: push takes a .cap (pack it first with pkg package pack)`);
      refuseEncrypted(source, 'push');
      const report = await this.validator.validate(source);
      if (!report.valid) {
        const failures = report.checks.filter((check) => !check.passed).map((check) => `${check.check}: ${check.errors.join('; ')}`);
        throw new InvalidPackageError(`${request.cap} does not validate, so it is not pushed: ${failures.join(' | ')}`);
      }
      // validate refused metadata without identifiers already; identified() says so again, typed.
      const { guid, name, version } = identified(await readMetadata(source));
      const digest = await digestOf(source.archiveBytes(), this.hasher);
      // The file could change between hashing and copying: what is copied must be what was hashed.
      const bytes = verifiedBytes(source.archiveBytes(), digest, this.hasher, () => new ChecksumMismatchError(`${request.cap} changed while it was being pushed; nothing was published`));
      const { entry, published } = await registry.publish({ guid, name, version, ...digest }, bytes, { overwrite: request.force });
      return { guid, name, version, ...digest, registry: registry.display, file: entry.file, published };
    } finally {
      await source.close();
    }
  }
}
