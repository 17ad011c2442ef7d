import type { ContentCoding } from '../ports/compressor.js';
import type { ByteBudget } from './byte-budget.js';

/**
 * Files smaller than this go identity only: a response under about 860 bytes fits one
 * TCP packet either way, and compressing it saves nothing worth a header (the threshold
 * Akamai and several CDNs use).
 */
export const MIN_ENCODED_SIZE = 860;

/** A file's bytes in another content coding, with its own strong ETag. */
export interface EncodedRepresentation {
  readonly etag: string;
  /** The encoded bytes once ready; undefined until `prepare` succeeded (or a background pass made them). */
  readonly body: Uint8Array | undefined;
  /** Set when the encoded bytes can never be sent: identity goes instead, for good. */
  readonly refused: boolean;
  /** Makes, or checks and loads, the encoded bytes (once); undefined when they cannot go this time. */
  prepare(): Promise<Uint8Array | undefined>;
  /** The file is no longer served in this version: its bytes go back to the budget, and it is never sent again. */
  release(): void;
}

/** The encoded forms a file may be sent in; a client's preference picks among those ready. */
export type Encodings = Partial<Record<ContentCoding, EncodedRepresentation>>;

/**
 * A representation whose bytes are made (or checked and loaded) on the first answer that
 * asks for them, once: concurrent first answers share the work, and the bytes, held in
 * the budget, go back to it when the file's version is dropped.
 */
export abstract class PreparedOnce implements EncodedRepresentation {
  body: Uint8Array | undefined;
  refused = false;
  private preparing: Promise<Uint8Array | undefined> | undefined;

  constructor(
    readonly etag: string,
    protected readonly budget: ByteBudget,
  ) {}

  prepare(): Promise<Uint8Array | undefined> {
    if (this.body || this.refused) return Promise.resolve(this.body);
    this.preparing ??= this.load().finally(() => (this.preparing = undefined));
    return this.preparing;
  }

  release(): void {
    if (this.refused) return;
    this.refused = true;
    if (this.body) this.budget.give(this.body.length);
    this.body = undefined;
  }

  /** Sets `body` (its length taken from the budget) and returns it, or returns undefined, setting `refused` when it never can be. */
  protected abstract load(): Promise<Uint8Array | undefined>;
}
