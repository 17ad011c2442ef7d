import type { Hasher } from '../ports/hasher.js';
import type { PackageSource } from '../ports/package-source.js';
import type { CompressedCopies } from './compressed-copies.js';
import type { EncodedRepresentation } from './encoded-representation.js';

/** One entry at a time: the pass leaves the other core, and zlib's other threads, to the requests. */
const CONCURRENCY = 1;

/**
 * The part of the byte budget the pass may fill: the rest stays for what requests need
 * later (plain bytes, which would otherwise be read from the archive on every request).
 */
const BUDGET_SHARE = 0.5;

/**
 * How much text the pass compresses at brotli's best quality: all of it at the best, the
 * 105 MB of pages of a large package kept a core busy for minutes after every start, in
 * each `--workers` process.
 */
const THOROUGH_BYTES = 8 * 1024 * 1024;

/** An archive entry worth a brotli copy. */
export interface BrotliCandidate {
  key: string;
  /** The declared size of its bytes: what reading it would hold in memory. */
  size: number;
  /** The verified SHA-256 of its bytes, when the package has one: a copy is only ever made of verified bytes. */
  sha256?: string;
  /** The size of its gzip answer: a brotli copy that is not smaller is not worth its memory. */
  gzipSize: number;
}

/**
 * Brotli copies of an archive's text entries, made in the background once the package
 * has loaded: one entry at a time, between requests (each compression runs in zlib's
 * thread pool, never on the event loop), at brotli's best quality since it is done once
 * (for the first THOROUGH_BYTES; the rest at a quality some 15 times faster), and within
 * the byte budget: the pass stops for good the first time the budget has no room, or
 * would be more than half used; an entry larger than that half alone is skipped unread. Until an entry's copy is ready, the entry goes
 * gzip-encoded (from its stored deflate bytes) or as identity. Cancelling (the package
 * closed or reloaded) stops the pending work and gives every copy's bytes back.
 */
export class BackgroundBrotli {
  /** The entries the pass compresses, once it has looked (until then, any entry may be one). */
  private keys: ReadonlySet<string> | undefined;
  private readonly ready = new Map<string, Uint8Array>();
  private held = 0;
  private cancelled = false;
  private full = false;
  /** Bytes still to compress at the best quality. */
  private thoroughLeft: number;
  private finished = false;
  /** Settles when the pass has finished, stopped or been cancelled. */
  readonly done: Promise<void>;

  /**
   * `candidates` are listed `delayMs` after the pass is made (a function, when listing them
   * is work of its own): a package's first answers go out before it looks at every entry.
   * The first `thoroughBytes` of them are compressed at brotli's best quality.
   */
  constructor(
    private readonly source: PackageSource,
    candidates: readonly BrotliCandidate[] | (() => readonly BrotliCandidate[]),
    private readonly copies: CompressedCopies,
    private readonly hasher: Hasher,
    { delayMs = 0, thoroughBytes = THOROUGH_BYTES }: { delayMs?: number; thoroughBytes?: number } = {},
  ) {
    this.thoroughLeft = thoroughBytes;
    const started = delayMs > 0 ? new Promise((resolve) => setTimeout(resolve, delayMs).unref()) : Promise.resolve();
    this.done = started
      .then(() => {
        if (this.cancelled) return;
        const listed = typeof candidates === 'function' ? candidates() : candidates;
        this.keys = new Set(listed.map((candidate) => candidate.key));
        return this.run(listed);
      })
      .finally(() => (this.finished = true));
  }

  /** The entry's brotli form, ready or not yet; undefined for an entry the pass does not compress. */
  representation(key: string, sha256: string): EncodedRepresentation | undefined {
    return !this.keys || this.keys.has(key) ? new BackgroundCopy(this, key, `"${sha256}-br"`) : undefined;
  }

  copy(key: string): Uint8Array | undefined {
    return this.ready.get(key);
  }

  /** Whether the entry's copy will never be sent: the pass was cancelled, or it is over without one. */
  never(key: string): boolean {
    return this.cancelled || (this.finished && !this.ready.has(key));
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.ready.clear();
    this.copies.budget.give(this.held);
    this.held = 0;
  }

  private async run(candidates: readonly BrotliCandidate[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (!this.cancelled && !this.full && next < candidates.length) {
        // A turn of the event loop between entries: requests that arrived meanwhile go first.
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (!this.cancelled) await this.compress(candidates[next++]!);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }

  private async compress({ key, size, sha256, gzipSize }: BrotliCandidate): Promise<void> {
    const { budget } = this.copies;
    const share = budget.limit * BUDGET_SHARE;
    // Judged by the declared size, before a byte is read: a few hundred kilobytes of deflate
    // may declare hundreds of megabytes. One that could never fit the share is left to its
    // gzip answer, and the pass goes on; one that does not fit beside the copies made stops it.
    if (size > share) return;
    if (budget.inUse + size > share) {
      this.full = true;
      return;
    }
    // An entry that does not read (the source closed, a damaged entry) is left to the request path.
    const bytes = await this.source.read(key).catch(() => undefined);
    if (!bytes || this.cancelled) return;
    if (sha256 !== undefined && this.hasher.sha256(bytes) !== sha256) return;
    const effort = this.thoroughLeft > 0 ? 'thorough' : 'steady';
    this.thoroughLeft -= bytes.length;
    const made = await this.copies.make('br', bytes, effort, gzipSize).catch(() => undefined);
    if (made?.kind === 'no-room') this.full = true;
    if (made?.kind !== 'copy') return;
    if (this.cancelled) return this.copies.budget.give(made.bytes.length);
    this.ready.set(key, made.bytes);
    this.held += made.bytes.length;
  }
}

/** An entry's brotli form as the pass has it: sent once ready, never made on a request. */
class BackgroundCopy implements EncodedRepresentation {
  constructor(
    private readonly pass: BackgroundBrotli,
    private readonly key: string,
    readonly etag: string,
  ) {}

  get body(): Uint8Array | undefined {
    return this.pass.copy(this.key);
  }

  get refused(): boolean {
    return this.pass.never(this.key);
  }

  prepare(): Promise<Uint8Array | undefined> {
    return Promise.resolve(this.body);
  }

  /** The pass holds the bytes, and gives them back when it is cancelled. */
  release(): void {}
}
