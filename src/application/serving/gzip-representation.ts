import { GZIP_FRAMING, gzipMember } from '../../domain/serving/gzip-member.js';
import type { Hasher } from '../ports/hasher.js';
import type { DeflatedEntry } from '../ports/package-source.js';
import type { ByteBudget } from './byte-budget.js';
import { MIN_ENCODED_SIZE, PreparedOnce } from './encoded-representation.js';

/** Whether a deflated entry goes gzip-encoded: big enough to gain, smaller framed than plain, small enough to hold. */
export function worthGzip(entry: DeflatedEntry, memoryLimit: number): boolean {
  const size = entry.compressedSize + GZIP_FRAMING;
  return entry.size >= MIN_ENCODED_SIZE && size < entry.size && size <= memoryLimit;
}

/**
 * The gzip form of an archive entry stored deflated: its raw deflate bytes in a gzip
 * member, never compressed again.
 *
 * Why the bytes are checked before the first gzip answer: identity bytes are what the
 * archive's deflate stream inflates to in zlib, checked against the central directory's
 * CRC-32 and size and against the package's verified SHA-256. The gzip answer hands the
 * raw stream itself to the client's decoder, so a stranger's archive could send other
 * bytes that way unless the raw stream is exactly one deflate stream that inflates to
 * those same bytes: data after its last block (which zlib ignores and a gzip reader
 * takes for the trailer), or a stream that inflates to anything else, would slip past
 * the verification that identity bytes get. So the raw bytes that will be sent are
 * inflated once (streamed through the hash, never held whole) and must give the identity
 * SHA-256; if not, this entry is never sent gzip-encoded. The checked raw bytes are held
 * in memory (within the reactor's byte budget), so what is sent is what was checked.
 */
export class GzipRepresentation extends PreparedOnce {
  private readonly size: number;

  private constructor(
    private readonly entry: DeflatedEntry,
    /** The identity bytes' SHA-256, lower-case hex. */
    private readonly sha256: string,
    private readonly hasher: Hasher,
    budget: ByteBudget,
  ) {
    super(`"${sha256}-gzip"`, budget);
    this.size = entry.compressedSize + GZIP_FRAMING;
  }

  /** The representation of an entry worth sending gzip-encoded and small enough to hold; undefined for the others. */
  static of(entry: DeflatedEntry | undefined, sha256: string, hasher: Hasher, budget: ByteBudget, memoryLimit: number): GzipRepresentation | undefined {
    return entry && worthGzip(entry, memoryLimit) ? new GzipRepresentation(entry, sha256, hasher, budget) : undefined;
  }

  protected async load(): Promise<Uint8Array | undefined> {
    // A full budget now may have room later: identity this time, and no verdict.
    if (!this.budget.take(this.size)) return undefined;
    try {
      const raw = await this.entry.raw();
      // Hashed as it inflates: the budget holds the raw bytes, not what they expand to.
      const hash = this.hasher.createSha256();
      for await (const chunk of this.entry.inflate(raw)) hash.update(chunk);
      if (hash.digest() !== this.sha256) throw new Error('inflates to other bytes');
      // Released while it was being checked: nothing holds it any more.
      if (this.refused) throw new Error('released');
      this.body = gzipMember(raw, this.entry.crc32, this.entry.size);
      return this.body;
    } catch {
      this.budget.give(this.size);
      this.refused = true;
      return undefined;
    }
  }
}
