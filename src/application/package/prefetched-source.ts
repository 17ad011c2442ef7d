import type { PackageSource } from '../ports/package-source.js';
import { MAX_DOCUMENT_BYTES } from './package-reader.js';
import { WrappedSource } from './wrapped-source.js';

/**
 * A source whose given files are read at once, together: an archive's reads of them are
 * under way while the ones asked for first are parsed, instead of one after another.
 * Each early read is handed out once (what it held is then the reader's); a failed one
 * fails that read, as it would have, and no other.
 */
export class PrefetchedSource extends WrappedSource {
  private readonly early = new Map<string, Promise<Uint8Array>>();

  constructor(inner: PackageSource, paths: readonly string[]) {
    super(inner);
    for (const path of paths) {
      // One too large to be a document is refused unread when it is asked for.
      if ((inner.sizeOf(path) ?? Infinity) > MAX_DOCUMENT_BYTES) continue;
      const bytes = inner.read(path);
      // Failing here is the read's to report, when it is asked for; a load that stops earlier never asks.
      bytes.catch(() => undefined);
      this.early.set(path, bytes);
    }
  }

  override read(path: string): Promise<Uint8Array> {
    const early = this.early.get(path);
    if (!early) return super.read(path);
    this.early.delete(path);
    return early;
  }
}
