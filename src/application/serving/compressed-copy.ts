import type { ContentCoding } from '../ports/compressor.js';
import type { CompressedCopies } from './compressed-copies.js';
import { PreparedOnce } from './encoded-representation.js';

/**
 * A file's bytes compressed once, on the first answer that asks for the coding, then
 * kept with the file's version (directory sources, overlay files): concurrent first
 * requests share one compression, and a write drops the copy with the identity bytes.
 */
export class CompressedCopy extends PreparedOnce {
  constructor(
    private readonly coding: ContentCoding,
    /** The identity bytes' SHA-256, lower-case hex. */
    sha256: string,
    private readonly identity: Uint8Array,
    private readonly copies: CompressedCopies,
  ) {
    super(`"${sha256}-${coding}"`, copies.budget);
  }

  protected async load(): Promise<Uint8Array | undefined> {
    const made = await this.copies.make(this.coding, this.identity, 'prompt').catch(() => ({ kind: 'failed' }) as const);
    if (made.kind === 'copy') {
      // Released while it was being made: the file changed, and this copy is of old bytes.
      if (this.refused) this.budget.give(made.bytes.length);
      else this.body = made.bytes;
      return this.body;
    }
    // Not smaller, or compression failed: identity for good. No room: identity this time only.
    if (made.kind !== 'no-room') this.refused = true;
    return undefined;
  }
}
