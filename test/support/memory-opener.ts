import { SourceNotFoundError } from '../../src/domain/errors.js';
import { MemoryPackageSource } from '../../src/adapters/archive/memory-package-source.js';
import type { PackageOpener, PackageSource } from '../../src/application/ports/package-source.js';

/** Opens packages held in memory by name. */
export class MemoryOpener implements PackageOpener {
  private readonly packages = new Map<string, Record<string, string | Uint8Array>>();

  add(location: string, files: Record<string, string | Uint8Array>): this {
    this.packages.set(location, files);
    return this;
  }

  async open(location: string): Promise<PackageSource> {
    const files = this.packages.get(location);
    if (!files) throw new SourceNotFoundError(`no package at ${location}`);
    return new MemoryPackageSource(files, location);
  }
}

export const VALID_METADATA = {
  name: 'demo-site',
  version: '1.2.3',
  description: 'A demo',
  guid: 'pkg://example.org/demo-site',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
};

export function demoPackage(overrides: Record<string, string | Uint8Array> = {}): Record<string, string | Uint8Array> {
  return {
    'metadata.json': JSON.stringify(VALID_METADATA),
    'content/index.html': '<!doctype html><title>Demo</title><link rel="stylesheet" href="/style.css">',
    'content/style.css': 'body { color: black; }',
    'content/docs/guide.html': '<!doctype html><p>Guide</p>',
    ...overrides,
  };
}
