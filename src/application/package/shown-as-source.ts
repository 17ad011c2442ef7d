import type { PackageSource } from '../ports/package-source.js';
import { WrappedSource } from './wrapped-source.js';

/**
 * A source that messages name by another location: a decrypted package by the encrypted
 * one the user gave, not by its plaintext copy in the workdir, a file the user never named
 * and which is gone once the reactor stops (or the package fails to load).
 */
export class ShownAsSource extends WrappedSource {
  constructor(
    inner: PackageSource,
    private readonly shownAs: string,
  ) {
    super(inner);
  }

  override get location(): string {
    return this.shownAs;
  }

  override get path(): string | undefined {
    return this.inner.path ?? this.inner.location;
  }
}
