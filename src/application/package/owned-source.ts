import type { PackageSource } from '../ports/package-source.js';
import { WrappedSource } from './wrapped-source.js';

/** A source over a file that exists only for it (a decrypted package): closing it removes the file. */
export class OwnedSource extends WrappedSource {
  constructor(
    inner: PackageSource,
    private readonly release: () => Promise<void>,
  ) {
    super(inner);
  }

  override async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      await this.release();
    }
  }
}
