import { PackageOutOfServiceError } from '../../domain/errors.js';

/**
 * Whether a lazily verified package may still be served. The first failed check, on a
 * read or in the background pass, takes it out of service for good: a package found
 * tampered once is not trusted again until it is loaded anew.
 */
export class ServiceGuard {
  private failure: PackageOutOfServiceError | undefined;
  private readonly listeners: Array<(reasons: readonly string[]) => void> = [];

  /** The error every request to the package meets once it is out of service; undefined while it serves. */
  get outOfService(): PackageOutOfServiceError | undefined {
    return this.failure;
  }

  assertServing(): void {
    if (this.failure) throw this.failure;
  }

  /** Takes the package out of service (once; later reasons are the same verdict) and returns the error that says so. */
  withdraw(reasons: readonly string[]): PackageOutOfServiceError {
    if (this.failure) return this.failure;
    // Said to clients: the package's own paths only, never where it lies on the server.
    this.failure = new PackageOutOfServiceError(`this package is out of service: it failed verification against its security.json (${reasons.join('; ')}); nothing of it is served until it is replaced`, reasons);
    for (const listener of this.listeners) listener(reasons);
    return this.failure;
  }

  onWithdraw(listener: (reasons: readonly string[]) => void): void {
    this.listeners.push(listener);
  }
}
